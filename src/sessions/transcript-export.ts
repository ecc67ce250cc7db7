/**
 * `/export` formats (pure): `json` (the session and its envelopes), `jsonl` (one envelope per line,
 * exactly as journaled), `md` and `html` (the conversation, readable). The HTML page is
 * self-contained (no script, no external resource; one inline style allowed by hash in its CSP)
 * and every piece of session text in it is escaped.
 */
import type { JournalRecord } from "../store/store.ts";
import type { SessionRecord } from "./session-history.ts";
import type { ExportFormat } from "./export-formats.ts";
import { transcriptEntries, type EntryKind, type TranscriptEntry } from "./transcript-entries.ts";

export type { ExportFormat };

const STYLE =
  "body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}" +
  "header{border-bottom:1px solid #ccc;margin-bottom:1rem}.e{margin:.6rem 0;padding:.5rem .8rem;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}" +
  ".user{background:#e8f0fe}.agent{background:#f4f4f4}.thought{color:#666;font-style:italic}.tool,.permission,.turn_end,.session_end,.notice{color:#555;font-size:.9em}" +
  ".error{background:#fdecea}.who{font-weight:600;display:block;font-size:.8em;color:#444}";
const STYLE_HASH = new Bun.CryptoHasher("sha256").update(STYLE).digest("base64");
/** Nothing may load or run; only the page's own style applies. Sent as a header too. */
export const EXPORT_HTML_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const LABELS: Record<EntryKind, string> = {
  user: "User",
  agent: "Agent",
  thought: "Thinking",
  tool: "Tool",
  permission: "Permission",
  turn_end: "Turn",
  error: "Error",
  session_end: "Session",
  notice: "Notice",
};

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Escapes text for one line of Markdown: every ASCII punctuation mark is backslash-escaped (so no
 * emphasis, link, heading, list, code span or raw HTML can start), and line breaks of any kind
 * become spaces (so the text cannot open a block of its own).
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\r\n\u0085\u2028\u2029]+/g, " ").replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

const title = (session: SessionRecord) => session.row?.displayName ?? session.live?.metadata.displayName ?? `Session ${session.id}`;
const envelopes = (records: readonly JournalRecord[]) => records.map((r) => JSON.parse(r.envelope) as unknown);

/**
 * The export document in pieces, read from `pages` (the journal in order, a bounded page at a time)
 * only as the pieces are taken: each piece is a header, the rendering of one page, or the footer,
 * so what is held at once is one page and its rendering, however long the session.
 */
export function* exportPieces(format: ExportFormat, session: SessionRecord, pages: Iterable<readonly JournalRecord[]>): Generator<string, void, undefined> {
  switch (format) {
    case "jsonl":
      for (const page of pages) yield page.map((r) => `${r.envelope}\n`).join("");
      return;
    case "json": {
      // The envelopes go out exactly as journaled (each is JSON already), inside this object's `events`.
      const head = JSON.stringify({
        v: 1,
        sessionId: session.id,
        workspaceCwd: session.workspace,
        ...(session.row ? { createdAt: new Date(session.row.createdAt).toISOString(), updatedAt: new Date(session.row.updatedAt).toISOString() } : {}),
        displayName: title(session),
        events: [],
      });
      yield head.slice(0, -"]}".length);
      let first = true;
      for (const page of pages) {
        if (page.length === 0) continue;
        yield `${first ? "" : ","}${page.map((r) => r.envelope).join(",")}`;
        first = false;
      }
      yield "]}";
      return;
    }
    case "md":
      yield* markdown(session, pages);
      return;
    case "html":
      yield* html(session, pages);
      return;
  }
}

/** The entries of each page in turn; a message running across pages continues (see `transcriptEntries`). */
function* entries(pages: Iterable<readonly JournalRecord[]>): Generator<TranscriptEntry[], void, undefined> {
  let previous: TranscriptEntry | undefined;
  for (const page of pages) {
    const found = transcriptEntries(envelopes(page), previous);
    const last = found[found.length - 1];
    // Only its kind and prompt matter to the next page; its text is not kept.
    if (last) previous = { kind: last.kind, text: "", at: last.at, ...(last.promptId ? { promptId: last.promptId } : {}) };
    yield found;
  }
}

/**
 * Markdown: each entry as a labelled paragraph; entry text is fenced so it cannot restyle the page.
 * A message that runs across journal pages gets one fenced block per page, under one label.
 */
function* markdown(session: SessionRecord, pages: Iterable<readonly JournalRecord[]>): Generator<string, void, undefined> {
  yield `# ${escapeMarkdown(title(session))}\n\nWorkspace: ${escapeMarkdown(session.workspace)}\n\n`;
  for (const found of entries(pages)) {
    const out: string[] = [];
    for (const entry of found) {
      // A fence longer than any backtick run in the text keeps the text inert.
      const fence = "`".repeat(Math.max(3, ...[...entry.text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      if (!entry.continues) out.push(`**${LABELS[entry.kind]}**\n\n`);
      out.push(`${fence}\n${entry.text}\n${fence}\n\n`);
    }
    yield out.join("");
  }
}

function* html(session: SessionRecord, pages: Iterable<readonly JournalRecord[]>): Generator<string, void, undefined> {
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(EXPORT_HTML_CSP)}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title(session))}</title>
<style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title(session))}</h1><p>Workspace: ${escapeHtml(session.workspace)}</p></header>
<main>
`;
  // An entry's element stays open while the next page may continue it.
  let open = false;
  for (const found of entries(pages)) {
    const out: string[] = [];
    for (const entry of found) {
      if (!entry.continues) {
        out.push(`${open ? "</div>\n" : ""}<div class="e ${entry.kind}"><span class="who">${LABELS[entry.kind]}</span>`);
        open = true;
      }
      out.push(escapeHtml(entry.text));
    }
    yield out.join("");
  }
  yield `${open ? "</div>" : ""}
</main></body></html>
`;
}
