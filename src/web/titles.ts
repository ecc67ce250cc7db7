/**
 * Session titles until the daemon names sessions: the first prompt seen in a session, kept in
 * `localStorage` so the session list can show it. Bound: `MAX_TITLES` titles of at most
 * `MAX_TITLE_CHARS` characters; the oldest are forgotten first.
 */
import { signal } from "@preact/signals";

const KEY = "svc.titles";
/** Bumped when a title is remembered: views that show titles read it, so they re-render. */
export const titlesVersion = signal(0);
const MAX_TITLES = 300;
export const MAX_TITLE_CHARS = 80;

let cache: Record<string, string> | null = null;

function all(): Record<string, string> {
  if (cache) return cache;
  try {
    cache = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Record<string, string>;
  } catch {
    cache = {};
  }
  return cache;
}

/** A prompt as a one-line title: blanks folded, cut at a word near `MAX_TITLE_CHARS`. */
export function titleFrom(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ").trim();
  if (line.length <= MAX_TITLE_CHARS) return line;
  const cut = line.slice(0, MAX_TITLE_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

export function rememberTitle(sessionId: string, prompt: string): void {
  const title = titleFrom(prompt);
  const titles = all();
  if (!title || titles[sessionId] === title) return;
  delete titles[sessionId];
  titles[sessionId] = title;
  const ids = Object.keys(titles);
  for (const id of ids.slice(0, Math.max(0, ids.length - MAX_TITLES))) delete titles[id];
  titlesVersion.value++;
  try {
    localStorage.setItem(KEY, JSON.stringify(titles));
  } catch {
    // No room: the title lives for this page only.
  }
}

export const rememberedTitle = (sessionId: string): string | undefined => (titlesVersion.value, all()[sessionId]);
