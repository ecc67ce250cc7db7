/**
 * Markdown to HTML with `marked` (GFM, line breaks kept). Raw HTML in the text is escaped: it shows
 * as text and is never parsed, so agent output cannot bring its own markup (an inline style or an
 * image the page's CSP refuses, a script DOMPurify would have to catch). Pure: no DOM.
 */
import { Marked } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const marked = new Marked({ gfm: true, breaks: true, async: false, renderer: { html: (token) => escapeHtml(token.text) } });

export const markdownToHtml = (text: string): string => marked.parse(text) as string;
