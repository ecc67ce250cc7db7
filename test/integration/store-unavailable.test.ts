/**
 * History tells the truth when svc.db cannot be read: a damaged file (garbage over its header, or
 * cut short) or a lock another process takes while the daemon runs. Every history and catalog read
 * answers 503 `store_unavailable` with a reason (and `Retry-After` only for the lock, which goes by
 * itself), never a 200 that passes for "no sessions" or a 404 that passes for "deleted"; live
 * sessions go on, and `/daemon/status` names it. A svc.db that can be read but not written (its
 * mode, a read-only file system) serves its history, and says that recording is off.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, closeSync, openSync, statSync, truncateSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE } from "../../src/store/database.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { holdLock } from "../helpers/db-lock.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import type { JsonReply } from "../helpers/json-request.ts";
import { mountTest, readOnlyView } from "../helpers/mounts.ts";
import { closedSession, runTurn } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Every history and catalog route's answer about `sessionId` (persisted, not live), by name. */
async function historyAnswers(d: FakeAgentDaemon, sessionId: string): Promise<[string, JsonReply][]> {
  const ws = workspaceId(d.workspace);
  const ids = { sessionIds: [sessionId] };
  const requests: [string, string, string, unknown?][] = [
    ["list", "GET", `/workspace/${ws}/sessions`],
    ["archived list", "GET", `/workspace/${ws}/sessions?archiveState=archived`],
    ["workspace-qualified list", "GET", `/workspaces/${ws}/sessions`],
    ["counts", "GET", `/workspace/${ws}/session-info`],
    ["transcript", "GET", `/session/${sessionId}/transcript`],
    ["workspace-qualified transcript", "GET", `/workspaces/${ws}/session/${sessionId}/transcript`],
    ["export", "GET", `/session/${sessionId}/export?format=json`],
    ["transcript of an unknown id", "GET", "/session/no-such-session/transcript"],
    ["load", "POST", `/session/${sessionId}/load`, {}],
    ["resume", "POST", `/session/${sessionId}/resume`, {}],
    ["lookup", "POST", "/sessions/catalog", ids],
    ["archive", "POST", "/sessions/archive", ids],
    ["unarchive", "POST", "/sessions/unarchive", ids],
    ["delete", "POST", "/sessions/delete", ids],
  ];
  const out: [string, JsonReply][] = [];
  for (const [what, method, path, body] of requests) out.push([what, await d.json(method, path, body)]);
  return out;
}

/** Asserts every answer is 503 `store_unavailable` with `reason`, with `Retry-After` exactly when `retryAfter` is given. */
function expectAllUnavailable(answers: [string, JsonReply][], reason: string, retryAfter: string | null): void {
  for (const [what, reply] of answers)
    expect({ what, status: reply.status, code: reply.body?.code, reason: reply.body?.reason, retryAfter: reply.headers.get("retry-after") }).toEqual({
      what,
      status: 503,
      code: "store_unavailable",
      reason,
      retryAfter,
    });
}

const issues = async (d: FakeAgentDaemon) => (await d.json("GET", "/daemon/status")).body.issues as { code: string; severity: string; message: string }[];

/** A data dir holding one closed session of `workspace` (its words: "kept"), written by a daemon that has stopped. */
async function seededHome(home: string, workspace: string): Promise<string> {
  await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home }, workspace });
  return await closedSession(d, "@say kept");
}

describe("a damaged svc.db", () => {
  const damages: [string, (path: string) => void][] = [
    [
      "garbage over its header",
      (path) => {
        const fd = openSync(path, "r+");
        writeSync(fd, Buffer.alloc(100, "Z"), 0, 100, 0);
        closeSync(fd);
      },
    ],
    ["cut short", (path) => truncateSync(path, 4096)],
    [
      // Opens (its first page, the schema, is intact): the damage is met by the first read of a table.
      "garbage over every page but the first",
      (path) => {
        const size = statSync(path).size;
        const fd = openSync(path, "r+");
        writeSync(fd, Buffer.alloc(size - 4096, "Z"), 0, size - 4096, 4096);
        closeSync(fd);
      },
    ],
  ];
  for (const [name, damage] of damages)
    test(`${name}: history answers 503 damaged (no Retry-After), never empty or 404; the live session goes on; status says so`, async () => {
      await using home = tempDir("svc-home-");
      await using workspace = tempDir("svc-ws-");
      const kept = await seededHome(home.path, workspace.path);
      damage(join(home.path, DB_FILE));

      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
      const { sessionId } = await d.createSession({ sessionScope: "thread" });
      const done = await runTurn(d, sessionId, "@say the live session works");
      expect(done.data.stopReason).toBe("end_turn");

      expectAllUnavailable(await historyAnswers(d, kept), "damaged", null);
      // The live session's own history is in the same file: 503 too, not an empty page.
      const live = await d.json("GET", `/session/${sessionId}/transcript`);
      expect({ status: live.status, reason: live.body.reason }).toEqual({ status: 503, reason: "damaged" });
      expect(await issues(d)).toContainEqual(expect.objectContaining({ code: "store_unavailable", severity: "error" }));
    }, 60_000);
});

describe("a svc.db found damaged by a read", () => {
  test("the read that meets the damage answers 503 damaged, and so does all history from then on (the file is damaged); status says so", async () => {
    await using home = tempDir("svc-home-");
    await using workspace = tempDir("svc-ws-");
    const kept = await seededHome(home.path, workspace.path);
    // Garbage over the journal's pages only: the schema and the catalog open and read as before.
    const path = join(home.path, DB_FILE);
    const db = new Database(path);
    const pageSize = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    const pages = (db.query("SELECT pageno FROM dbstat WHERE name = 'journal'").all() as { pageno: number }[]).map((p) => p.pageno);
    db.close();
    const fd = openSync(path, "r+");
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, "Z"), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);

    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
    expect((await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`)).status).toBe(200);
    const transcript = await d.json("GET", `/session/${kept}/transcript`);
    expect({ status: transcript.status, reason: transcript.body.reason }).toEqual({ status: 503, reason: "damaged" });
    expectAllUnavailable(await historyAnswers(d, kept), "damaged", null);
    expect(await issues(d)).toContainEqual(expect.objectContaining({ code: "store_unavailable", severity: "error" }));
    // The live side goes on.
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    expect((await runTurn(d, sessionId, "@say still live")).data.stopReason).toBe("end_turn");
  }, 60_000);
});

describe("a lock another process takes while the daemon runs", () => {
  test("history answers 503 locked with Retry-After while it is held, the live session goes on, and history comes back once it goes", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const kept = await closedSession(d, "@say kept");
    let sessionId: string;
    {
      // Taken whole (readers kept out) once the daemon's connection has closed for being idle.
      await using _lock = await holdLock(join(home.path, DB_FILE), { exclusive: true });
      ({ sessionId } = await d.createSession({ sessionScope: "thread" }));
      await runTurn(d, sessionId, "@say while locked");
      expectAllUnavailable(await historyAnswers(d, kept), "locked", "1");
      expect(await issues(d)).toContainEqual(expect.objectContaining({ code: "store_unavailable", severity: "warning" }));
    }
    const list = await until(
      async () => {
        const reply = await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`);
        return reply.status === 200 ? reply : null;
      },
      20_000,
      "the list once the lock is gone",
    );
    expect((list.body.sessions as { sessionId: string }[]).map((s) => s.sessionId).sort()).toEqual([kept, sessionId].sort());
    expect(JSON.stringify((await d.json("GET", `/session/${kept}/transcript`)).body)).toContain("kept");
    expect((await d.json("POST", "/sessions/catalog", { sessionIds: [kept, "no-such-session"] })).body.missing).toEqual(["no-such-session"]);
    expect((await issues(d)).map((i) => i.code)).not.toContain("store_unavailable");
  }, 90_000);
});

describe("a svc.db that can be read but not written", () => {
  /** Its history is served as it is; recording is off and says so, in the session and the status; changes are refused. */
  async function expectServedReadOnly(d: FakeAgentDaemon, kept: string): Promise<void> {
    const list = await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`);
    expect(list.status).toBe(200);
    expect((list.body.sessions as { sessionId: string }[]).map((s) => s.sessionId)).toContain(kept);
    const transcript = await d.json("GET", `/session/${kept}/transcript`);
    expect(transcript.status).toBe(200);
    expect(JSON.stringify(transcript.body)).toContain("kept");
    expect((await d.fetch(`/session/${kept}/export?format=md`)).status).toBe(200);

    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
    const notice = await events.first("session_recording_degraded");
    expect(notice.data).toMatchObject({ sessionId, reason: "read_only", transient: false, firstUnrecordedEventId: notice.id! + 1 });
    expect(await issues(d)).toContainEqual(expect.objectContaining({ code: "recording_degraded", message: expect.stringContaining("read-only") }));
    expect((await issues(d)).map((i) => i.code)).not.toContain("store_unavailable");

    const archive = await d.json("POST", "/sessions/archive", { sessionIds: [kept] });
    expect({ status: archive.status, reason: archive.body.reason }).toEqual({ status: 503, reason: "read_only" });
    const load = await d.json("POST", `/session/${kept}/load`, {});
    expect(load.status).toBe(200);
    expect(JSON.stringify(load.body.compactedReplay)).toContain("kept");
  }

  test("file mode 0444 (honoured even for root): history is served, recording is degraded read_only, the mode is left as it is", async () => {
    await using home = tempDir("svc-home-");
    await using workspace = tempDir("svc-ws-");
    const kept = await seededHome(home.path, workspace.path);
    const path = join(home.path, DB_FILE);
    chmodSync(path, 0o444);
    {
      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
      await expectServedReadOnly(d, kept);
    }
    expect(statSync(path).mode & 0o777).toBe(0o444);
  }, 60_000);

  mountTest(
    "a read-only file system: history is served (no -shm can be made), recording is degraded read_only",
    async () => {
      await using home = tempDir("svc-home-");
      await using workspace = tempDir("svc-ws-");
      const kept = await seededHome(home.path, workspace.path);
      await using view = readOnlyView(home.path);
      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: view.path }, workspace: workspace.path });
      await expectServedReadOnly(d, kept);
    },
    60_000,
  );
});
