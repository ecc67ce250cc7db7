/**
 * Deleting a session with a large journal: the reply comes at once and the session is gone from
 * every read at once; its rows and disk space are reclaimed in bounded steps afterwards, with the
 * daemon answering meanwhile; a restart mid-way never brings it back and finishes the job.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { closedSession } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Journal rows added to the session, ~4 KB each: a 100 MB journal. */
const ROWS = 25_000;

/** Grows the session's journal to ~100 MB from another connection (the daemon is idle meanwhile). */
function growJournal(home: string, sessionId: string): void {
  const db = new Database(join(home, "svc.db"));
  db.run("PRAGMA busy_timeout = 5000");
  // The journal's keys for the session id and the epoch `grown` (schema 4), then the rows (one-event chunks as text, schema 5).
  db.query("INSERT OR IGNORE INTO journal_sessions (id) VALUES ($id)").run({ id: sessionId });
  db.query("INSERT OR IGNORE INTO journal_epochs (session, epoch) SELECT key, 'grown' FROM journal_sessions WHERE id = $id").run({ id: sessionId });
  db.query(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
     INSERT INTO journal (session, epoch, first_event_id, count, chars, encoding, body)
     SELECT s.key, e.key, 1000 + i, 1, length(envelope), 0, envelope
     FROM (SELECT i, printf('{"id":%d,"pad":"%s"}', 1000 + i, replace(hex(zeroblob(2000)), '0', 'x')) AS envelope FROM n),
       journal_sessions s JOIN journal_epochs e ON e.session = s.key AND e.epoch = 'grown' WHERE s.id = $id`,
  ).run({ rows: ROWS, id: sessionId });
  db.close();
}

/** What is left to compact: the session's journal rows and the file's free pages. */
function leftover(home: string, sessionId: string): { rows: number; free: number } {
  const db = new Database(join(home, "svc.db"), { readonly: true });
  try {
    const rows = (db.query("SELECT COUNT(*) AS n FROM journal WHERE session = (SELECT key FROM journal_sessions WHERE id = ?)").get(sessionId) as { n: number }).n;
    const free = (db.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
    return { rows, free };
  } finally {
    db.close();
  }
}

const listed = async (d: FakeAgentDaemon) => ((await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`)).body.sessions as { sessionId: string }[]).map((s) => s.sessionId);

describe("compaction after a large delete", () => {
  test("the delete answers before the journal is reclaimed, /health answers while it is, and it ends with no rows and no free pages", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const sessionId = await closedSession(d);
    growJournal(home.path, sessionId);

    const deleted = await d.json("POST", "/sessions/delete", { sessionIds: [sessionId] });
    expect(deleted.body.results).toEqual([{ sessionId, outcome: "deleted" }]);
    // Gone from every read at once.
    expect(await listed(d)).not.toContain(sessionId);
    expect((await d.json("GET", `/session/${sessionId}/transcript`)).status).toBe(404);
    // Served between compaction steps: most of the journal is still there.
    expect((await d.json("GET", "/health")).status).toBe(200);
    expect(leftover(home.path, sessionId).rows).toBeGreaterThan(ROWS / 2);

    await until(() => {
      const left = leftover(home.path, sessionId);
      return left.rows === 0 && left.free === 0;
    }, 60_000, "compaction to finish");
  }, 120_000);

  test("a restart mid-compaction keeps the session deleted and finishes reclaiming it", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const workspace = ws.path;
    let sessionId: string;
    {
      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace });
      sessionId = await closedSession(d);
      growJournal(home.path, sessionId);
      expect((await d.json("POST", "/sessions/delete", { sessionIds: [sessionId] })).body.results).toEqual([{ sessionId, outcome: "deleted" }]);
    }
    // Stopped mid-way: rows remain, but the session does not come back.
    expect(leftover(home.path, sessionId).rows).toBeGreaterThan(0);
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace });
    expect(await listed(d)).not.toContain(sessionId);
    expect((await d.json("GET", `/session/${sessionId}/transcript`)).status).toBe(404);
    expect((await d.json("POST", `/session/${sessionId}/load`, {})).status).toBe(404);
    await until(() => {
      const left = leftover(home.path, sessionId);
      return left.rows === 0 && left.free === 0;
    }, 60_000, "compaction to finish after the restart");
  }, 120_000);
});
