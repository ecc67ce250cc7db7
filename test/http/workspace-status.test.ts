/**
 * The workspace status routes of an idle daemon (spec "Status cell" and the snapshots): every one
 * answers `initialized: false` with an empty snapshot, and none of them starts an agent child.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

const ROUTES = ["/workspace/env", "/workspace/preflight", "/workspace/mcp", "/workspace/skills", "/workspace/providers", "/workspace/tools"];

test("an idle daemon answers every status route uninitialized and empty, and starts no child", async () => {
  await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code" } });
  const bodies = new Map<string, any>();
  for (const path of ROUTES) {
    const reply = await d.json("GET", path);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ v: 1, workspaceCwd: d.workspace, initialized: false });
    bodies.set(path, reply.body);
  }
  // Every member of the envelope, as the reference's clients read it: nothing discovered, no client, no budget.
  expect(bodies.get("/workspace/mcp")).toEqual({
    v: 1,
    workspaceCwd: d.workspace,
    initialized: false,
    servers: [],
    discoveryState: "not_started",
    clientCount: 0,
    budgetMode: "off",
    budgets: [],
  });
  expect(bodies.get("/workspace/skills")).toEqual({ v: 1, workspaceCwd: d.workspace, initialized: false, skills: [] });
  expect(bodies.get("/workspace/providers")).toEqual({ v: 1, workspaceCwd: d.workspace, initialized: false, providers: [] });
  expect(bodies.get("/workspace/tools")).toEqual({
    v: 1,
    workspaceCwd: d.workspace,
    initialized: false,
    acpChannelLive: false,
    tools: [],
    errors: [{ kind: "tools", status: "not_started", hint: "tools are reported once an agent session is started" }],
  });
  const acp = bodies.get("/workspace/preflight").cells.filter((c: { locality: string }) => c.locality === "acp");
  expect(acp.map((c: { status: string }) => c.status)).toEqual(["not_started", "not_started", "not_started", "not_started", "not_started", "not_started"]);
  expect(await d.agentPids()).toEqual([]);
});
