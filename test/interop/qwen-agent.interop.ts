/**
 * Interop: the real reference agent (`qwen --acp`, @qwen-code/qwen-code 0.24.4) as our agent child,
 * finishing turns offline against the loopback mock model. Run with `npm run test:interop`
 * (which installs the agent into `.interop/` first). Covers create, attach, thread, a text turn,
 * a write turn with a permission vote, close, and a child restart after the child dies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { QWEN_CLI } from "./install-qwen.ts";

const TURN_MS = 60_000;

let mock: MockModel;
let ws: TempDir;
let qwenHome: TempDir;
let daemon: TestDaemon;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  daemon.fetch(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  if (!existsSync(QWEN_CLI)) throw new Error("run `bun test/interop/install-agents.ts qwen-code` first (npm run test:interop does)");
  mock = startMockModel();
  ws = tempDir("svc-interop-ws-");
  qwenHome = tempDir("svc-interop-qwen-");
  // Ask before file writes, so the write turn produces a permission request.
  mkdirSync(join(ws.path, ".qwen"), { recursive: true });
  writeFileSync(join(ws.path, ".qwen", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
  daemon = await startDaemon(["--initialize-timeout-ms", "60000"], {
    workspace: ws.path,
    env: {
      SVC_CLI_ENTRY: QWEN_CLI,
      OPENAI_API_KEY: "dummy-key",
      OPENAI_BASE_URL: mock.baseUrl,
      OPENAI_MODEL: "mock-model",
      QWEN_HOME: qwenHome.path,
      HOME: qwenHome.path,
      PATH: process.env.PATH,
    },
  });
}, TURN_MS);

afterAll(async () => {
  await daemon?.[Symbol.asyncDispose]();
  await mock?.[Symbol.asyncDispose]();
  await qwenHome?.[Symbol.asyncDispose]();
  await ws?.[Symbol.asyncDispose]();
});

async function childPids(): Promise<number[]> {
  const status = await (await daemon.fetch("/daemon/status")).json();
  return status.runtime.channel.childPids;
}

describe("the reference agent behind svc", () => {
  let sessionId = "";
  let clientId = "";

  test("create, attach and thread share one child", async () => {
    const first = await (await post("/session", {})).json();
    expect(first).toMatchObject({ attached: false, workspaceCwd: ws.path });
    sessionId = first.sessionId;
    clientId = first.clientId;
    const again = await (await post("/session", {})).json();
    expect(again).toMatchObject({ attached: true, sessionId });
    const thread = await (await post("/session", { sessionScope: "thread" })).json();
    expect(thread.attached).toBe(false);
    expect(thread.sessionId).not.toBe(sessionId);
    const health = await (await daemon.fetch("/health?deep")).json();
    expect(health.sessions).toBe(2);
    expect((await childPids()).length).toBe(1);
    expect((await daemon.fetch(`/session/${thread.sessionId}`, { method: "DELETE" })).status).toBe(204);
  }, TURN_MS);

  test("a text turn completes", async () => {
    await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
    const admitted = await (await post(`/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "hello from the interop test" }] }, { "X-Svc-Client-Id": clientId })).json();
    const done = await sse.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.promptId, TURN_MS);
    expect(done.data.stopReason).toBe("end_turn");
    expect(sse.frames.some((f) => f.event === "session_update" && f.data.update?.sessionUpdate === "agent_message_chunk")).toBe(true);
  }, TURN_MS);

  test("a write turn asks for permission and writes after the vote", async () => {
    const target = join(ws.path, "hello.txt");
    await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
    const admitted = await (await post(`/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `please write ${target}` }] })).json();
    const request = await sse.waitFor("permission_request", undefined, TURN_MS);
    expect(request.data.options.map((o: { optionId: string }) => o.optionId)).toContain("proceed_once");
    const vote = await post(`/session/${sessionId}/permission/${request.data.requestId}`, { outcome: { outcome: "selected", optionId: "proceed_once" } });
    expect(vote.status).toBe(200);
    await sse.waitFor("permission_resolved", undefined, TURN_MS);
    const done = await sse.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.promptId, TURN_MS);
    expect(done.data.stopReason).toBe("end_turn");
    expect(readFileSync(target, "utf8")).toBe("hello from mock\n");
  }, TURN_MS);

  test("every workspace status route and session view reads from the live agent, with nothing secret", async () => {
    const read = async (path: string) => {
      const reply = await daemon.fetch(path);
      const text = await reply.text();
      expect({ path, status: reply.status }).toEqual({ path, status: 200 });
      // Only the env cells (and the full status that repeats them) name a whitelisted key variable, by presence.
      const names = path === "/workspace/env" || path.startsWith("/daemon/status") ? [] : ["OPENAI_API_KEY"];
      for (const secret of ["dummy-key", mock.baseUrl, "installedPath", "baseUrl", ...names]) expect({ path, leaks: text.includes(secret) ? secret : null }).toEqual({ path, leaks: null });
      return JSON.parse(text);
    };
    for (const section of ["env", "preflight", "mcp", "skills", "providers", "tools"]) {
      const body = await read(`/workspace/${section}`);
      expect({ section, initialized: body.initialized, workspaceCwd: body.workspaceCwd }).toEqual({ section, initialized: true, workspaceCwd: ws.path });
    }
    const tools = await read("/workspace/tools");
    expect(tools.tools.map((t: { name: string }) => t.name)).toContain("write_file");
    const mcp = await read("/workspace/mcp");
    expect(["not_started", "in_progress", "completed"]).toContain(mcp.discoveryState);
    const preflight = await read("/workspace/preflight");
    expect(preflight.cells.filter((c: { locality: string }) => c.locality === "acp").map((c: { kind: string }) => c.kind)).toEqual(expect.arrayContaining(["auth", "tool_registry"]));
    for (const view of ["context", "context-usage", "supported-commands"]) await read(`/session/${sessionId}/${view}`);
    const full = await read("/daemon/status?detail=full");
    for (const section of Object.values(full.full.workspace) as { status: string }[]) expect(section.status).not.toBe("unavailable");
  }, TURN_MS);

  test("the child dying ends its sessions and the next create starts a new child", async () => {
    await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
    const [pid] = await childPids();
    expect(pid).toBeNumber();
    process.kill(pid!, "SIGKILL");
    const died = await sse.waitFor("session_died", undefined, TURN_MS);
    expect(died.data.reason).toBe("channel_closed");
    await until(async () => (await daemon.fetch(`/session/${sessionId}/status`)).status === 404, 10_000, "the session to be gone");
    const fresh = await (await post("/session", {})).json();
    expect(fresh.attached).toBe(false);
    const [next] = await childPids();
    expect(next).toBeNumber();
    expect(next).not.toBe(pid);
    expect((await daemon.fetch(`/session/${fresh.sessionId}`, { method: "DELETE" })).status).toBe(204);
  }, TURN_MS);
});
