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

/** Sanitized HTML for a markdown text (no `style` attributes: the page's CSP forbids inline styles). */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(markdownToHtml(text), { FORBID_ATTR: ["style"], FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"] });
}
