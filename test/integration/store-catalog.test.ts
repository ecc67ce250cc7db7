/**
 * Bulk changes to persisted sessions: archive, unarchive, delete (with compaction), and lookup by
 * id; live sessions are left alone.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { closedSession } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const pages = (home: string) => {
  const db = new Database(join(home, "svc.db"), { readonly: true });
  const count = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  const free = (db.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
  db.close();
  return { count, free };
};

describe("bulk session changes", () => {
  test("archive and unarchive move persisted sessions between the lists; live ones and unknown ids say so", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const closed = await closedSession(d);
    const { sessionId: live } = await d.createSession({ sessionScope: "thread" });
    const list = async (state: string) => ((await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions?archiveState=${state}`)).body.sessions as { sessionId: string }[]).map((s) => s.sessionId).sort();

    const archived = await d.json("POST", "/sessions/archive", { sessionIds: [closed, live, "nope"] });
    expect(archived.status).toBe(200);
    expect(archived.body.results).toEqual([
      { sessionId: closed, outcome: "archived" },
      { sessionId: live, outcome: "live" },
      { sessionId: "nope", outcome: "not_found" },
    ]);
    expect(await list("active")).toEqual([live]);
    expect(await list("archived")).toEqual([closed]);
    const load = await d.json("POST", `/session/${closed}/load`, {});
    expect(load.status).toBe(409);
    expect(load.body).toMatchObject({ code: "session_archived", sessionId: closed });
    // Its history stays readable.
    expect((await d.json("GET", `/session/${closed}/transcript`)).status).toBe(200);

    expect((await d.json("POST", "/sessions/unarchive", { sessionIds: [closed] })).body.results).toEqual([{ sessionId: closed, outcome: "unarchived" }]);
    expect(await list("active")).toEqual([closed, live].sort());
    expect(await list("archived")).toEqual([]);
  });

  test("delete removes a closed session and its transcript and compacts the database; a live session is kept", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const big = await closedSession(d, "@stream 3000");
    const small = await closedSession(d);
    const { sessionId: live } = await d.createSession({ sessionScope: "thread" });
    const before = pages(home.path);

    const deleted = await d.json("POST", "/sessions/delete", { sessionIds: [big, live, big] });
    expect(deleted.status).toBe(200);
    expect(deleted.body.results).toEqual([
      { sessionId: big, outcome: "deleted" },
      { sessionId: live, outcome: "live" },
    ]);
    for (const path of [`/session/${big}/transcript`, `/session/${big}/export`]) expect((await d.json("GET", path)).status).toBe(404);
    expect((await d.json("POST", `/session/${big}/load`, {})).status).toBe(404);
    expect((await d.json("GET", `/session/${small}/transcript`)).body.events.length).toBeGreaterThan(0);
    expect((await d.json("GET", `/session/${live}/status`)).status).toBe(200);
    // The freed pages go back to the file system (compaction runs in steps after the reply).
    const after = await until(() => {
      const now = pages(home.path);
      return now.free === 0 && now.count < before.count ? now : null;
    }, 20_000, "the file compacted");
    expect(after.free).toBe(0);
    expect(after.count).toBeLessThan(before.count);

    expect((await d.json("POST", "/sessions/delete", { sessionIds: [big] })).body.results).toEqual([{ sessionId: big, outcome: "not_found" }]);
  }, 30_000);

  test("catalog lookup answers live and persisted sessions and names the missing ones; bad id lists are 400", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const closed = await closedSession(d);
    const { sessionId: live } = await d.createSession({ sessionScope: "thread" });
    const found = await d.json("POST", "/sessions/catalog", { sessionIds: [live, closed, "nope"] });
    expect(found.status).toBe(200);
    expect(found.body.sessions).toEqual([expect.objectContaining({ sessionId: live, live: true }), expect.objectContaining({ sessionId: closed, live: false, persistedState: "closed" })]);
    expect(found.body.missing).toEqual(["nope"]);

    for (const path of ["/sessions/catalog", "/sessions/archive", "/sessions/unarchive", "/sessions/delete"])
      for (const body of [{}, { sessionIds: [] }, { sessionIds: "x" }, { sessionIds: [""] }, { sessionIds: Array.from({ length: 501 }, (_, i) => `s${i}`) }, [1, 2]]) {
        const reply = await d.json("POST", path, body);
        expect(reply.status).toBe(400);
        expect(reply.body.code).toBe("invalid_session_ids");
      }
  });

  test("workspace-qualified lists: persisted and live sessions by workspace id or path; live-state holds the live ones only", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const closed = await closedSession(d);
    const { sessionId: live } = await d.createSession({ sessionScope: "thread" });
    for (const selector of [workspaceId(d.workspace), encodeURIComponent(d.workspace)]) {
      const list = await d.json("GET", `/workspaces/${selector}/sessions?size=1`);
      expect(list.status).toBe(200);
      expect(list.body.sessions).toHaveLength(1);
      const next = await d.json("GET", `/workspaces/${selector}/sessions?size=1&cursor=${list.body.nextCursor}`);
      expect([...list.body.sessions, ...next.body.sessions].map((s: { sessionId: string }) => s.sessionId).sort()).toEqual([closed, live].sort());
      expect(next.body.nextCursor).toBeUndefined();
      const state = await d.json("GET", `/workspaces/${selector}/sessions/live-state`);
      expect(state.body.sessions).toEqual([expect.objectContaining({ sessionId: live, live: true })]);
    }
    expect((await d.json("GET", "/workspaces/0123456789abcdef/sessions")).status).toBe(404);
    expect((await d.json("GET", "/workspaces/nope/sessions/live-state")).body.code).toBe("invalid_workspace");
    const cursor = await d.json("GET", `/workspaces/${workspaceId(d.workspace)}/sessions?cursor=bad!`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.code).toBe("invalid_cursor");
  });
});
