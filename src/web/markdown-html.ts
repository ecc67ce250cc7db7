/**
 * Markdown to HTML with `marked` (GFM, line breaks kept). Raw HTML in the text is escaped: it shows
 * as text and is never parsed, so agent output cannot bring its own markup (an inline style or an
 * image the page's CSP refuses, a script DOMPurify would have to catch, an id, role, aria or class
 * that impersonates the UI). Markdown's own constructs carry no text-chosen attributes either: an
 * image shows as its alt text (no request leaves the page for it), and a fenced code block's info
 * string does not become a class. Pure: no DOM.
 */
import { Marked } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: (token) => escapeHtml(token.text),
    image: (token) => escapeHtml(token.text),
    code: (token) => `<pre><code>${token.escaped ? token.text : escapeHtml(token.text)}\n</code></pre>\n`,
  },
});

export const markdownToHtml = (text: string): string => marked.parse(text) as string;
