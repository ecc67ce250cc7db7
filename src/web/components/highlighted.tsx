/**
 * Syntax highlighting on demand: the highlighter (highlight.ts) is a chunk of its own, imported the
 * first time code with a known language is shown; every view showing code re-renders with colours
 * once it is there (`highlighter`, a signal). Until then, and for unknown languages, code shows
 * plain. Agent text keeps its hidden characters marked.
 */
import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { languageOf } from "../languages.ts";
import { Visible } from "./visible-text.tsx";

type Highlighter = typeof import("../highlight.ts");

/** The highlighter, once its chunk has loaded. */
export const highlighter = signal<Highlighter | null>(null);
let loading: Promise<unknown> | null = null;

/** Asks for the highlighter's chunk (once; a failed load is tried again on the next ask). */
function load(): void {
  loading ??= import("../highlight.ts").then(
    (m) => (highlighter.value = m),
    () => (loading = null),
  );
}

/** The highlighter when `wanted` and loaded, else null (it is asked for when wanted). */
export function useHighlighter(wanted: boolean): Highlighter | null {
  const h = highlighter.value;
  useEffect(() => {
    if (wanted && !h) load();
  }, [wanted, h]);
  return wanted ? h : null;
}

/** The fence info strings of a markdown text's code blocks, in order ("" for a fence without one). */
export function fenceLanguages(markdown: string): string[] {
  const out: string[] = [];
  let open: string | null = null;
  for (const m of markdown.matchAll(/^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)/gm)) {
    const marker = m[1]!;
    if (open === null) {
      open = marker;
      out.push(m[2] ?? "");
    } else if (marker[0] === open[0] && marker.length >= open.length) open = null;
  }
  return out;
}

/** Colours the `pre > code` blocks under `root` in place (their text is already sanitized and escaped). */
export function highlightBlocks(root: HTMLElement, languages: string[], h: Highlighter): void {
  const codes = root.querySelectorAll("pre > code");
  codes.forEach((code, i) => {
    const language = languageOf(languages[i] ?? "");
    if (!language || code.childElementCount > 0) return;
    const lines = (code.textContent ?? "").split("\n");
    const frag = document.createDocumentFragment();
    lines.forEach((line, n) => {
      for (const t of h.highlightLine(line, language)) {
        if (t.kind === null) frag.append(t.text);
        else {
          const span = document.createElement("span");
          span.className = `hl-${t.kind}`;
          span.textContent = t.text;
          frag.append(span);
        }
      }
      if (n < lines.length - 1) frag.append("\n");
    });
    code.replaceChildren(frag);
  });
}

/** One line of code, coloured when the highlighter is loaded and its language (a family from `languageOf`) known. */
export function CodeLine({ text, language, h }: { text: string; language: string | undefined; h: Highlighter | null }) {
  if (!h || !language) return <Visible text={text} multiline />;
  return (
    <>
      {h.highlightLine(text, language).map((t, i) =>
        t.kind === null ? (
          <Visible key={i} text={t.text} multiline />
        ) : (
          <span key={i} class={`hl-${t.kind}`}>
            <Visible text={t.text} multiline />
          </span>
        ),
      )}
    </>
  );
}
