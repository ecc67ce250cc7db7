/**
 * Sanitized markdown, block by block (`splitBlocks`): finished blocks render once; the last block
 * of a text that is still growing (a streaming agent message) re-renders at most every
 * `STREAM_RENDER_MS`. A block over `MAX_MARKDOWN_BLOCK_CHARS` shows as plain text.
 */
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { languageOf } from "../languages.ts";
import { renderMarkdown } from "../markdown.ts";
import { MAX_MARKDOWN_BLOCK_CHARS, splitBlocks, splitPieces } from "../text-blocks.ts";
import { fenceLanguages, highlightBlocks, useHighlighter } from "./highlighted.tsx";
import { BoundedText } from "./long-text.tsx";

const STREAM_RENDER_MS = 200;

/**
 * `split(text)` for a text that usually grows by appending: the parts before the last are kept
 * from the previous call and only the last part onwards is split again. `split` must split a
 * suffix that starts at a part boundary exactly as it splits the whole (both splitters here do).
 */
function useIncrementalSplit(text: string, split: (s: string) => string[]): string[] {
  const cache = useRef<{ text: string; parts: string[] } | null>(null);
  const prev = cache.current;
  let parts: string[];
  const offset = prev && prev.parts.length > 0 ? prev.text.length - prev.parts[prev.parts.length - 1]!.length : -1;
  if (prev && offset >= 0 && grewFrom(text, prev.text, offset)) {
    parts = prev.parts.slice(0, -1).concat(split(text.slice(offset)));
  } else parts = split(text);
  cache.current = { text, parts };
  return parts;
}

/**
 * `text` is `prev` with more appended, judged from the part of `prev` from `offset` on (which is
 * re-split anyway) and its head. A streamed message only grows, so the parts before `offset` are
 * not compared: `startsWith` over a whole streamed text (a rope of chunks, in the browser) walks it
 * character by character, tens of ms for a megabyte, on every frame.
 */
function grewFrom(text: string, prev: string, offset: number): boolean {
  if (text.length < prev.length) return false;
  const head = Math.min(offset, 256);
  return text.slice(0, head) === prev.slice(0, head) && text.slice(offset, prev.length) === prev.slice(offset);
}

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const blocks = useIncrementalSplit(text, splitBlocks);
  const last = blocks.length - 1;
  return (
    <div class="md">
      {blocks.map((b, i) => (
        <Block key={i} text={b} streaming={streaming && i === last} />
      ))}
    </div>
  );
}

const Block = memo(function Block({ text, streaming }: { text: string; streaming: boolean }) {
  if (text.length > MAX_MARKDOWN_BLOCK_CHARS) return <PlainText text={text} />;
  return <HtmlBlock text={text} streaming={streaming} />;
});

function PlainText({ text }: { text: string }) {
  const pieces = useIncrementalSplit(text, splitPieces);
  return (
    <div class="plain">
      {pieces.map((p, i) => (
        <PlainPiece key={i} text={p} />
      ))}
    </div>
  );
}

/** A piece of a long plain text; a line past the bound shows its head and a "Show all" (long-text.tsx). */
const PlainPiece = memo(function PlainPiece({ text }: { text: string }) {
  return (
    <pre class="plain-piece">
      <BoundedText text={text} plain />
    </pre>
  );
});

function HtmlBlock({ text, streaming }: { text: string; streaming: boolean }) {
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
  const box = useRef<HTMLDivElement>(null);
  const languages = useMemo(() => fenceLanguages(text), [text]);
  const h = useHighlighter(languages.some((l) => languageOf(l) !== undefined));
  useLayoutEffect(() => {
    if (h && box.current) highlightBlocks(box.current, languages, h);
  }, [html, h, languages]);
  return <div class="md-block" ref={box} dangerouslySetInnerHTML={{ __html: html }} />;
}
