import { describe, expect, test } from "bun:test";
import type { SessionRecord } from "../../../src/sessions/session-history.ts";
import { transcriptEntries } from "../../../src/sessions/transcript-entries.ts";
import { escapeHtml, exportPieces, type ExportFormat } from "../../../src/sessions/transcript-export.ts";
import type { JournalRecord } from "../../../src/store/store.ts";

const chunk = (kind: string, text: string, promptId = "p1", at = 1) => ({
  v: 1,
  type: "session_update",
  data: { sessionId: "s", update: { sessionUpdate: kind, content: { type: "text", text } } },
  promptId,
  _meta: { serverTimestamp: at },
});

const records = (envelopes: unknown[]): JournalRecord[] => envelopes.map((e, i) => ({ position: i + 1, epoch: "e", eventId: i + 1, type: (e as { type: string }).type, envelope: JSON.stringify(e) }));
/** The whole document, its journal read as one page. */
const renderExport = (format: ExportFormat, s: SessionRecord, recs: JournalRecord[]) => [...exportPieces(format, s, [recs])].join("");
const session: SessionRecord = { id: "s-1", workspace: "/w", row: null, live: null };

describe("transcript entries", () => {
  test("joins consecutive chunks of one kind and prompt; a new kind or prompt starts a new entry", () => {
    const entries = transcriptEntries([
      chunk("user_message_chunk", "Hi "),
      chunk("user_message_chunk", "there"),
      chunk("agent_message_chunk", "Hel"),
      chunk("agent_message_chunk", "lo"),
      chunk("agent_message_chunk", "Again", "p2"),
      { type: "turn_complete", data: { stopReason: "end_turn" }, _meta: { serverTimestamp: 2 } },
      { type: "session_update", data: { update: { sessionUpdate: "available_commands_update" } } },
      { type: "session_closed", data: { reason: "client_close" } },
    ]);
    expect(entries.map((e) => [e.kind, e.text])).toEqual([
      ["user", "Hi there"],
      ["agent", "Hello"],
      ["agent", "Again"],
      ["turn_end", "Turn ended: end_turn"],
      ["session_end", "Session closed: client_close"],
    ]);
  });

  test("a permission request the daemon refused is a notice saying why", () => {
    const entries = transcriptEntries([{ type: "permission_request_refused", data: { sessionId: "s", reason: "too_many_options", options: 17, limit: 16 }, _meta: { serverTimestamp: 1 } }]);
    expect(entries.map((e) => [e.kind, e.text])).toEqual([["notice", "The agent asked for permission with 17 options (at most 16 are accepted); the daemon refused it without asking"]]);
  });

  test("a subagent's messages (nested under a task call) are not folded into the agent's reply (review R16)", () => {
    const nested = (kind: string, text: string) => ({ ...chunk(kind, text), data: { sessionId: "s", update: { sessionUpdate: kind, content: { type: "text", text }, _meta: { parentToolCallId: "task-1", subagentType: "general-purpose" } } } });
    const entries = transcriptEntries([chunk("agent_message_chunk", "Let me delegate. "), nested("agent_message_chunk", "SUBAGENT-INNER"), nested("user_message_chunk", "task prompt"), chunk("agent_message_chunk", "Done.")]);
    expect(entries.map((e) => [e.kind, e.text])).toEqual([["agent", "Let me delegate. Done."]]);
  });

  test("survives envelopes of the wrong shape", () => {
    expect(transcriptEntries([null, 3, "x", { type: "session_update" }, { type: "turn_error", data: [] }])).toEqual([{ kind: "error", text: "Turn failed: unknown error", at: 0 }]);
  });
});

describe("export formats", () => {
  test("escapeHtml leaves nothing that HTML would read as markup", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe("&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#60;/a&#62;");
  });

  test("html escapes every piece of session text, loads nothing and runs nothing", () => {
    const page = renderExport("html", { ...session, id: "</title><script>x</script>" }, records([chunk("agent_message_chunk", "<script>alert(1)</script>")]));
    expect(page).not.toContain("<script");
    expect(page).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(page).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-[A-Za-z0-9+/=]+&#39;/);
  });

  test("markdown fences each entry longer than any backtick run in it", () => {
    const md = renderExport("md", session, records([chunk("agent_message_chunk", "````\n# not a heading")]));
    expect(md).toContain("`````\n````\n# not a heading\n`````");
  });

  test("markdown escapes the title and the workspace: a hostile title starts no HTML, link, emphasis or block", () => {
    const hostile = "</title><script>alert(1)</script> [x](javascript:alert(1)) *b* `c`\n# forged\u2028- item";
    const md = renderExport("md", { id: "s-1", workspace: "/w/<img src=x onerror=alert(1)>`", row: null, live: { metadata: { displayName: hostile } } } as unknown as SessionRecord, records([]));
    const [heading, , workspace] = md.split("\n");
    expect(heading).toBe("# \\<\\/title\\>\\<script\\>alert\\(1\\)\\<\\/script\\> \\[x\\]\\(javascript\\:alert\\(1\\)\\) \\*b\\* \\`c\\` \\# forged \\- item");
    expect(workspace).toBe("Workspace: \\/w\\/\\<img src\\=x onerror\\=alert\\(1\\)\\>\\`");
    // No unescaped markup character is left anywhere outside the fences.
    expect(md).not.toMatch(/(^|[^\\])[<>[\]*`]/);
  });

  test("read in pages, every format reads one page per piece and renders as one page would", () => {
    const recs = records([
      chunk("user_message_chunk", "<q>"),
      chunk("agent_message_chunk", "a<"),
      chunk("agent_message_chunk", "b>"),
      chunk("agent_message_chunk", "c"),
      { type: "turn_complete", data: { stopReason: "end_turn" } },
    ]);
    for (const format of ["html", "md", "json", "jsonl"] as const) {
      let read = 0;
      const pages = (function* () {
        for (const r of recs) {
          read++;
          yield [r];
        }
      })();
      const pieces = exportPieces(format, session, pages);
      const taken = [pieces.next().value, pieces.next().value];
      // Nothing is read ahead of what the client took: a long session is never held whole.
      expect(read).toBeLessThanOrEqual(2);
      const paged = [...taken, ...pieces].join("");
      expect(read).toBe(recs.length);
      if (format === "md") {
        // A message across pages keeps one label; each page's part is fenced on its own.
        expect(paged.match(/\*\*Agent\*\*/g)).toHaveLength(1);
        expect(paged).toContain("```\na<\n```\n\n```\nb>\n```");
      } else expect(paged).toBe(renderExport(format, session, recs));
    }
    expect(renderExport("json", session, recs)).toBe(JSON.stringify({ v: 1, sessionId: "s-1", workspaceCwd: "/w", displayName: "Session s-1", events: recs.map((r) => JSON.parse(r.envelope)) }));
  });

  test("jsonl is the journaled envelopes, one a line, byte for byte", () => {
    const recs = records([chunk("user_message_chunk", "a"), chunk("agent_message_chunk", "b")]);
    expect(renderExport("jsonl", session, recs)).toBe(`${recs[0]!.envelope}\n${recs[1]!.envelope}\n`);
  });
});
