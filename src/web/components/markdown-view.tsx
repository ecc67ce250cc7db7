/**
 * Sanitized markdown. A text that is still growing (a streaming agent message) is re-rendered at
 * most every `STREAM_RENDER_MS`, so a long stream costs a few parses per second, not one per chunk.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { renderMarkdown } from "../markdown.ts";

const STREAM_RENDER_MS = 150;

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const [html, setHtml] = useState(() => renderMarkdown(text));
  const last = useRef({ at: 0, text });
  useEffect(() => {
    if (last.current.text === text) return;
    const wait = streaming ? last.current.at + STREAM_RENDER_MS - Date.now() : 0;
    const run = () => {
      last.current = { at: Date.now(), text };
      setHtml(renderMarkdown(text));
    };
    if (wait <= 0) return run();
    const timer = setTimeout(run, wait);
    return () => clearTimeout(timer);
  }, [text, streaming]);
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
