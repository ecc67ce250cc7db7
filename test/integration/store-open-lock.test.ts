/**
 * Another process holds svc.db's write lock when the daemon first opens it, with a migration
 * pending (an upgraded svc meets a backup or a sqlite3 shell). Recording pauses, it does not end:
 * the open is tried again on a timer; the live turn goes on; what was published meanwhile is marked
 * as a gap in the journal, the sessions started meanwhile are in the catalog; recording resumes and
 * the daemon says so in its status and log. Meanwhile history reads and catalog changes answer 503
 * `store_unavailable` (locked, Retry-After), never an empty list or a false 404.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { DB_FILE } from "../../src/store/database.ts";
import { MIGRATIONS, SCHEMA_VERSION, migrate, schemaVersion } from "../../src/store/migrations.ts";
import { holdLock } from "../helpers/db-lock.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { runTurn } from "../helpers/session-turns.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const recordingIssue = async (d: FakeAgentDaemon) =>
  ((await d.json("GET", "/daemon/status")).body.issues as { code: string }[]).find((i) => i.code === "recording_degraded");

describe("a lock held at the database's first open", () => {
  test("recording pauses while it is held (a pending migration waits), then resumes with the missed events marked as a gap", async () => {
    await using home = tempDir("svc-home-");
    await using workspace = tempDir("ws-");
    const path = join(home.path, DB_FILE);
    // A database of the previous schema, with one closed session of the workspace.
    const old = new Database(path, { create: true, strict: true });
    old.run("PRAGMA auto_vacuum = INCREMENTAL");
    old.run("PRAGMA journal_mode = WAL");
    migrate(old, MIGRATIONS.filter((m) => m.version < SCHEMA_VERSION));
    old.query("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id, state) VALUES ('old-1', ?1, 1, 2, 'old-1', 'closed')").run(workspace.path);
    old.close();

    await using d = await fakeAgentDaemon([], { workspace: workspace.path, env: { SVC_HOME: home.path } });
    let sessionId: string;
    let events: SseClient;
    {
      await using _lock = await holdLock(path);
      ({ sessionId } = await d.createSession({ sessionScope: "thread" }));
      events = await d.events(sessionId, { "Last-Event-ID": "0" });
      // The live turn is not held back by the paused recording.
      await runTurn(d, sessionId, "@say while the open waits");
      expect(await recordingIssue(d)).toBeDefined();
      // The history is there, only not readable yet: 503 locked, retryable soon; never an empty list or a false 404.
      for (const path of [`/workspace/${workspaceId(workspace.path)}/sessions`, "/session/old-1/transcript", "/session/old-1/export"]) {
        const reply = await d.json("GET", path);
        expect(reply.status).toBe(503);
        expect(reply.body).toMatchObject({ code: "store_unavailable", reason: "locked", retryable: true });
        expect(reply.headers.get("retry-after")).toBe("1");
      }
      expect((await d.json("POST", "/sessions/archive", { sessionIds: ["old-1"] })).status).toBe(503);
    }
    await until(async () => (await recordingIssue(d)) === undefined, 20_000, "recording resumed");
    await runTurn(d, sessionId, "@say after the lock");
    // The session was told first thing (nothing of it was recorded yet), then, once the open went
    // through, how many of its events went out unrecorded.
    const notice = await events.first("session_recording_degraded");
    const resumed = await events.first("session_recording_resumed");
    await events[Symbol.asyncDispose]();
    expect(notice.id).toBe(1);
    expect(notice.data).toMatchObject({ transient: true, firstUnrecordedEventId: 2, unrecordedEvents: 0 });
    expect(resumed.data).toEqual({ sessionId, noticeEventId: 1, firstUnrecordedEventId: 2, unrecordedEvents: resumed.id! - 2 });

    const transcript = (await d.json("GET", `/session/${sessionId}/transcript?limit=500`)).body as { events: { type: string; data: Record<string, unknown> }[] };
    const types = transcript.events.map((e) => e.type);
    const gap = transcript.events.find((e) => e.type === "recording_gap")!;
    // The gap is the notice and every event up to the resumption, which is journaled.
    expect(gap.data).toMatchObject({ sessionId, reason: "locked", firstEventId: 1, lastEventId: resumed.id! - 1, notRecorded: resumed.id! - 1 });
    expect(types[1]).toBe("session_recording_resumed");
    // The gap comes first: everything before it was published during the lock and is not kept.
    expect(types[0]).toBe("recording_gap");
    expect(JSON.stringify(transcript)).toContain("after the lock");
    expect(JSON.stringify(transcript)).not.toContain("while the open waits");

    // The catalog has both: the session started during the lock (closed now, so only the catalog
    // can list it) and the one from before the upgrade.
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    const list = (await d.json("GET", `/workspace/${workspaceId(workspace.path)}/sessions`)).body as { sessions: { sessionId: string }[] };
    expect(list.sessions.map((s) => s.sessionId).sort()).toEqual([sessionId, "old-1"].sort());

    const logs = d.logs.join("\n");
    expect(logs).toContain("recording paused");
    expect(logs).toContain("recording resumed");
    expect(logs).not.toContain("recording degraded");

    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    db.close();
  }, 60_000);
});
