/**
 * Markdown for agent and user text: `marked` (GFM) to HTML, then DOMPurify. Raw HTML in the text is
 * shown as text, never parsed (so agent output cannot even ask for an inline style or an image the
 * page's CSP would then refuse); DOMPurify stays as the second line. Links open in a new tab
 * without an opener.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const marked = new Marked({ gfm: true, breaks: true, async: false, renderer: { html: (token) => escapeHtml(token.text) } });

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

