/**
 * Syntax highlighting (highlight.ts) of fenced code in rendered markdown and of diff lines; unknown
 * languages show plain, and agent text keeps its hidden characters marked. The highlighter is
 * bundled with the page, not split off: the compiled binary serves split chunks at a path the
 * bundle does not ask for, and the highlighter is a few KB.
 */
import { highlightLine, languageOf } from "../highlight.ts";
import { Visible } from "./visible-text.tsx";

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
export function highlightBlocks(root: HTMLElement, languages: string[]): void {
  const codes = root.querySelectorAll("pre > code");
  codes.forEach((code, i) => {
    const language = languageOf(languages[i] ?? "");
    if (!language || code.childElementCount > 0) return;
    const lines = (code.textContent ?? "").split("\n");
    const frag = document.createDocumentFragment();
    lines.forEach((line, n) => {
      for (const t of highlightLine(line, language)) {
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

/** One line of code, coloured when its language (a family from `languageOf`) is known. */
export function CodeLine({ text, language }: { text: string; language: string | undefined }) {
  if (!language) return <Visible text={text} multiline />;
  return (
    <>
      {highlightLine(text, language).map((t, i) =>
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
