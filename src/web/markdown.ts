/**
 * Markdown for agent and user text: `markdownToHtml` (raw HTML escaped), then DOMPurify as the
 * second line, so agent output never reaches the page as raw HTML. Links open in a new tab without
 * an opener.
 */
import DOMPurify from "dompurify";
import { markdownToHtml } from "./markdown-html.ts";

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/**
 * What markdown produces, and nothing else: no `img`, `input`, `label` or `style`, and no `id`,
 * `class`, `role`, `aria-*`, `data-*`, `for` or `style` attribute (agent text must not impersonate
 * the UI, hijack its accessible names or trip the page's CSP).
 */
const ALLOWED = {
  ALLOWED_TAGS: ["p", "br", "hr", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td"],
  ALLOWED_ATTR: ["href", "title", "start", "align"],
  ALLOW_ARIA_ATTR: false,
  ALLOW_DATA_ATTR: false,
};

/** Sanitized HTML for a markdown text. */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(markdownToHtml(text), ALLOWED);
}
