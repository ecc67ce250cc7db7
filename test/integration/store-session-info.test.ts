/**
 * `GET /workspace/:id/session-info` and `GET /workspaces/:workspace/session-info`: how many sessions
 * a workspace has, in the reference daemon's shape (`active`, `archived`, `total`, `live`,
 * `expensive: true`, `cost: "disk_scan"`), counted as the session list lists them, without
 * starting a child.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { closedSession } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";

/** The session-info document by every route and selector form; asserts they agree and returns it. */
async function sessionInfo(d: FakeAgentDaemon): Promise<unknown> {
  const paths = [workspaceId(d.workspace), encodeURIComponent(d.workspace)].flatMap((s) => [`/workspace/${s}/session-info`, `/workspaces/${s}/session-info`]);
  const replies = await Promise.all(paths.map((p) => d.json("GET", p)));
  for (const reply of replies) expect(reply.status).toBe(200);
  for (const reply of replies.slice(1)) expect(reply.body).toEqual(replies[0]!.body);
  return replies[0]!.body;
}

const counts = (active: number, archived: number, live: number) => ({ active, archived, total: active + archived, live, expensive: true, cost: "disk_scan" });

describe("session-info", () => {
  test("an empty workspace has no sessions", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    expect(await sessionInfo(d)).toEqual(counts(0, 0, 0));
    expect(await d.agentPids()).toEqual([]);
  });

  test("counts active (closed and live), archived and live sessions; after a restart, from the catalog alone, starting no child", async () => {
    await using home = tempDir("svc-home-");
    await using workspace = tempDir("svc-ws-");
    {
      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
      const [kept, archived] = [await closedSession(d), await closedSession(d)];
      expect((await d.json("POST", "/sessions/archive", { sessionIds: [archived] })).status).toBe(200);
      await d.createSession({ sessionScope: "thread" });
      expect(await sessionInfo(d)).toEqual(counts(2, 1, 1));
      // Deleting takes the session out of the counts.
      expect((await d.json("POST", "/sessions/delete", { sessionIds: [kept] })).status).toBe(200);
      expect(await sessionInfo(d)).toEqual(counts(1, 1, 1));
    }
    await using again = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
    expect(await sessionInfo(again)).toEqual(counts(1, 1, 0));
    expect(await again.agentPids()).toEqual([]);
  });

  test("with recording degraded (svc.db read-only), live sessions the catalog lacks are counted as active", async () => {
    await using home = tempDir("svc-home-");
    await using workspace = tempDir("svc-ws-");
    {
      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
      await closedSession(d);
    }
    chmodSync(join(home.path, "svc.db"), 0o444);
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: workspace.path });
    await d.createSession({ sessionScope: "thread" });
    await d.createSession({ sessionScope: "thread" });
    expect(await sessionInfo(d)).toEqual(counts(3, 0, 2));
  });

  test("while the catalog cannot be read, the counts answer 503 store_unavailable, not zeros", async () => {
    await using home = tempDir("svc-home-");
    // svc.db is a directory: the database cannot be opened.
    mkdirSync(join(home.path, "svc.db"));
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    await d.createSession({ sessionScope: "thread" });
    const reply = await d.json("GET", `/workspace/${workspaceId(d.workspace)}/session-info`);
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "store_unavailable", reason: "unreadable" });
  });

  test("a selector that is neither id nor path is 400 invalid_workspace; another workspace is 404", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    for (const [path, param] of [
      ["/workspace/nope/session-info", ":id"],
      ["/workspaces/relative%2Fpath/session-info", ":workspace"],
    ] as const) {
      const reply = await d.json("GET", path);
      expect({ status: reply.status, body: reply.body }).toEqual({ status: 400, body: { error: `\`${param}\` must decode to a workspace id or absolute path`, code: "invalid_workspace" } });
    }
    for (const path of ["/workspace/0123456789abcdef/session-info", "/workspaces/%2Fnowhere/session-info"]) {
      const reply = await d.json("GET", path);
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 404, code: "workspace_not_found" });
    }
    expect(await d.agentPids()).toEqual([]);
  });
});
