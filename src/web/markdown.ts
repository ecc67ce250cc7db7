/**
 * Markdown for agent and user text: `marked` (GFM) to HTML, then DOMPurify, so agent output never
 * reaches the page as raw HTML. Links open in a new tab without an opener.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: true, async: false });

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** Sanitized HTML for a markdown text (no `style` attributes: the page's CSP forbids inline styles). */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, { FORBID_ATTR: ["style"], FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"] });
}

/**
 * Bound on one markdown block's size: a bigger block shows as plain preformatted text (parsing and
 * sanitizing cost grows with size; past this a single render could block the page over 100 ms).
 */
export const MAX_MARKDOWN_BLOCK_CHARS = 8_000;

/**
 * Splits markdown at blank lines outside code fences, so a long message renders block by block and
 * only its last block re-renders while it streams. Each block keeps its trailing newline.
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | null = null;
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf("\n", pos);
    const lineEnd = end < 0 ? text.length : end + 1;
    const line = text.slice(pos, end < 0 ? text.length : end);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    } else if (fence === null && line.trim() === "" && pos > start) {
      blocks.push(text.slice(start, lineEnd));
      start = lineEnd;
    }
    pos = lineEnd;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}
