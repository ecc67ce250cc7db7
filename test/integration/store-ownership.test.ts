/**
 * Who may write a data dir's svc.db, and what a failed write costs: one daemon owns the data dir (a
 * second one serves its own sessions with recording off, told, and never touches the owner's); a
 * lock held for a moment is ridden out; a client's failed catalog change fails that request only.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { journalRows } from "../helpers/journal-rows.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Runs `text` on `sessionId` to its end (events open from the start, so every frame is seen). */
async function runTurn(d: FakeAgentDaemon, sessionId: string, text: string): Promise<void> {
  await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  expect(prompt.status).toBe(202);
  const done = await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 20_000);
  expect(done.data.stopReason).toBe("end_turn");
}

const transcriptText = async (d: FakeAgentDaemon, sessionId: string) => JSON.stringify((await d.json("GET", `/session/${sessionId}/transcript?limit=500`)).body);
const recordingIssue = async (d: FakeAgentDaemon) =>
  ((await d.json("GET", "/daemon/status")).body.issues as { code: string; message?: string }[]).find((i) => i.code === "recording_degraded");

describe("data-dir ownership", () => {
  test("a second daemon on the same data dir serves its own sessions unrecorded, says whose the dir is, and never touches the owner's sessions", async () => {
    await using home = tempDir("svc-home-");
    await using a = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId: owned } = await a.createSession({ sessionScope: "thread" });
    await runTurn(a, owned, "@say owner's words");
    const ownerPid = (await a.json("GET", "/daemon/status")).body.daemon.pid as number;

    await using b = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: a.workspace });
    const { sessionId: other } = await b.createSession({ sessionScope: "thread" });
    // B's live session works; B says its recording is off and whose the data dir is.
    await runTurn(b, other, "@say second daemon");
    const issue = await recordingIssue(b);
    expect(issue).toBeDefined();
    expect(JSON.stringify(issue)).toContain(`pid ${ownerPid}`);
    // B neither lists nor restores nor deletes nor archives the owner's session: its history answers
    // 503 data_dir_owned (the sessions exist, B may not read them), never an empty list or a 404.
    for (const [method, path] of [
      ["GET", `/workspace/${workspaceId(b.workspace)}/sessions`],
      ["POST", `/session/${owned}/load`],
      ["POST", `/session/${owned}/resume`],
      ["GET", `/session/${owned}/transcript`],
    ] as const) {
      const reply = await b.json(method, path, method === "POST" ? {} : undefined);
      expect({ path, status: reply.status, reason: reply.body.reason }).toEqual({ path, status: 503, reason: "data_dir_owned" });
    }
    expect((await b.json("POST", "/sessions/delete", { sessionIds: [owned] })).status).toBe(503);
    expect((await b.json("POST", "/sessions/archive", { sessionIds: [owned] })).status).toBe(503);
    // B's session is not in the owner's database; the owner's session is intact and still recorded.
    expect((await a.json("GET", `/session/${other}/transcript`)).status).toBe(404);
    await runTurn(a, owned, "@say owner goes on");
    const text = await transcriptText(a, owned);
    expect(text).toContain("owner's words");
    expect(text).toContain("owner goes on");
    expect(await recordingIssue(a)).toBeUndefined();
    const row = new Database(join(home.path, "svc.db"), { readonly: true }).query("SELECT state, archived FROM sessions WHERE id = ?").get(owned);
    expect(row).toEqual({ state: "live", archived: 0 });
  }, 60_000);

  test("a lock another connection holds for a few seconds delays recording; it is not given up", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await runTurn(d, sessionId, "@say before the lock");

    // Longer than the daemon's busy timeout, shorter than its lock wait (MAX_LOCK_WAIT_MS, 10 s).
    const blocker = new Database(join(home.path, "svc.db"));
    // The daemon may be committing this very moment: wait for the lock rather than fail the test.
    blocker.run("PRAGMA busy_timeout = 10000");
    blocker.run("BEGIN EXCLUSIVE");
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        blocker.run("ROLLBACK");
        blocker.close();
        resolve();
      }, 2600),
    );
    try {
      await runTurn(d, sessionId, "@say during the lock");
    } finally {
      await released;
    }
    await runTurn(d, sessionId, "@say after the lock");
    expect(await recordingIssue(d)).toBeUndefined();
    const text = await transcriptText(d, sessionId);
    for (const said of ["before the lock", "during the lock", "after the lock"]) expect(text).toContain(said);
  }, 60_000);
});

describe("failed catalog changes", () => {
  test("a client's catalog change that cannot be written fails with 503 and a hint; recording goes on", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId: closed } = await d.createSession({ sessionScope: "thread" });
    await runTurn(d, closed, "@say first");
    expect((await d.json("DELETE", `/session/${closed}`)).status).toBe(204);
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    // Any write to the archived flag now fails inside SQLite, as a full disk or I/O error would.
    const db = new Database(join(home.path, "svc.db"));
    db.run("PRAGMA busy_timeout = 10000"); // the daemon may be writing this moment (a journal flush)
    db.run("CREATE TRIGGER refuse_archive BEFORE UPDATE OF archived ON sessions BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    db.close();

    const archived = await d.json("POST", "/sessions/archive", { sessionIds: [closed] });
    expect(archived.status).toBe(503);
    expect(archived.body).toMatchObject({ code: "store_unavailable" });
    expect(JSON.stringify(archived.body)).toContain("refused by the test");

    await runTurn(d, sessionId, "@say still recorded");
    expect(await recordingIssue(d)).toBeUndefined();
    await until(async () => (await transcriptText(d, sessionId)).includes("still recorded"), 10_000, "the later turn in the journal");
  }, 60_000);
});

describe("where recording stopped", () => {
  test("when a journal write fails, the journal still ends with the degradation notice, so transcript shows where recording stopped", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await runTurn(d, sessionId, "@say recorded");
    // Journal chunks mentioning the poison word fail inside SQLite, as a full disk would; others go in
    // (a compressed chunk cannot be searched, so those fail too; the degradation notice is a small text one).
    const db = new Database(join(home.path, "svc.db"));
    db.run("PRAGMA busy_timeout = 10000");
    db.run("CREATE TRIGGER refuse_journal BEFORE INSERT ON journal WHEN NEW.encoding <> 0 OR NEW.body LIKE '%poison-word%' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    db.close();

    await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
    const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say poison-word" }] });
    await events.first("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 20_000);
    expect(await recordingIssue(d)).toBeDefined();
    const journal = new Database(join(home.path, "svc.db"), { readonly: true });
    const rows = journalRows(journal, sessionId).map((r) => JSON.parse(r.envelope) as { id: number; type: string; data: Record<string, unknown> });
    journal.close();
    const notice = rows.at(-1)!;
    expect(notice.type).toBe("session_recording_degraded");
    // The notice went out before any event the journal lacks: it took the first one's place, and names the next id.
    const frames = events.frames.filter((f) => f.id !== undefined);
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i + 1));
    expect(frames.filter((f) => f.id! < notice.id).map((f) => f.id)).toEqual(rows.slice(0, -1).map((r) => r.id));
    expect(notice.data).toMatchObject({ reason: "write_failed", firstUnrecordedEventId: notice.id + 1 });
    // It counts the turn's events that failed with it (the poisoned chunk and what came in its batch), which follow it.
    const unrecorded = notice.data.unrecordedEvents as number;
    expect(unrecorded).toBeGreaterThan(0);
    expect(frames.slice(notice.id, notice.id + unrecorded).some((f) => JSON.stringify(f.data).includes("poison-word"))).toBe(true);
    const text = await transcriptText(d, sessionId);
    expect(text).toContain("recorded");
    expect(text).not.toContain("poison-word");
    expect(text).toContain("session_recording_degraded");
  }, 60_000);
});
