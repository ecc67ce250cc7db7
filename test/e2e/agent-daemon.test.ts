/**
 * The built-in agent behind the daemon (no SVC_CLI_ENTRY), the parts of issue 11's "Checked by"
 * that `test/integration/agent-builtin.test.ts` does not cover: load after a daemon restart, each
 * approval mode, each kind of provider error, an MCP tool from a stdio test server, and the status
 * routes fed by `svc/status/*`; and the model's one-byte deltas as a few events, none of them after
 * the turn's end (hostile review round 2).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockReply } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const MCP_SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
const TURN_MS = 20_000;

/** A workspace with `.svc/settings.json`, a data dir of its own, the mock model, and `svc serve` flags (`--trust-workspace` for a trusted one). */
function fixture(settings: Record<string, unknown> = {}, hostSettings: Record<string, unknown> = {}, args: string[] = []) {
  const model = startMockModel();
  const ws = tempDir("svc-agent-daemon-ws-");
  const home = tempDir("svc-agent-daemon-home-");
  mkdirSync(join(ws.path, ".svc"));
  writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify(settings));
  // No automatic title: its model request would take a reply queued for the session's next turn.
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, ...hostSettings }));
  const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
  return {
    model,
    ws,
    home,
    start: () => startDaemon(args, { workspace: ws.path, env }),
    async [Symbol.asyncDispose]() {
      await model[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

async function openSession(url: string): Promise<{ sessionId: string; events: SseClient }> {
  const created = await jsonRequest(url, "POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  return { sessionId, events: await openSse(`${url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } }) };
}

/** Sends a prompt and waits for its end: the turn_complete or turn_error frame. */
async function turn(url: string, sessionId: string, events: SseClient, text: string) {
  const reply = await jsonRequest(url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const promptId = reply.body.promptId as string;
  return await until(() => events.frames.find((f) => (f.event === "turn_complete" || f.event === "turn_error") && f.data.promptId === promptId), TURN_MS, "the turn's end");
}

describe("built-in agent through the daemon: restarts, modes, errors, MCP", () => {
  test("after a daemon restart, load restores the session through the agent's session/load: the history is replayed and the next prompt carries it", async () => {
    await using f = fixture();
    let sessionId: string;
    {
      await using d = await f.start();
      const s = await openSession(d.url);
      sessionId = s.sessionId;
      f.model.enqueue({ kind: "text", text: "the first answer" });
      expect((await turn(d.url, sessionId, s.events, "remember the word kumquat")).event).toBe("turn_complete");
      s.events.close();
      await d.stop();
    }
    await using d = await f.start();
    const load = await jsonRequest(d.url, "POST", `/session/${sessionId}/load`, {});
    expect(load.status).toBe(200);
    expect(load.body.restoredBy).toBe("session/load");
    // The daemon answers with its journal's replay; the agent restored the conversation itself (the next request carries it).
    const replayed = JSON.stringify(load.body.compactedReplay);
    expect(replayed).toContain("remember the word kumquat");
    expect(replayed).toContain("the first answer");
    await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
    const before = f.model.requests.length;
    expect((await turn(d.url, sessionId, events, "what was the word?")).event).toBe("turn_complete");
    const sent = JSON.stringify(f.model.requests.slice(before));
    expect(sent).toContain("remember the word kumquat");
    expect(sent).toContain("the first answer");
  });

  for (const [mode, expected] of [
    ["plan", { edit: "refused", shell: "refused" }],
    ["default", { edit: "asked", shell: "asked" }],
    ["auto-edit", { edit: "ran", shell: "asked" }],
    ["auto", { edit: "asked", shell: "ran" }],
    ["yolo", { edit: "ran", shell: "ran" }],
  ] as const) {
    test(`approval mode ${mode}: edits ${expected.edit}, a read-only shell command ${expected.shell}`, async () => {
      // A trusted workspace's settings set the mode; yolo never comes from them, only from the host settings or the flag.
      await using f = mode === "yolo" ? fixture({}, {}, ["--trust-workspace", "--approval-mode", "yolo"]) : fixture({ tools: { approvalMode: mode } }, {}, ["--trust-workspace"]);
      writeFileSync(join(f.ws.path, "a.txt"), "one\n");
      await using d = await f.start();
      const s = await openSession(d.url);
      f.model.enqueue(
        { kind: "tools", calls: [{ name: "edit", args: { file_path: "a.txt", old_string: "one", new_string: "two" } }] },
        { kind: "tools", calls: [{ name: "run_shell_command", args: { command: "ls" } }] },
        { kind: "text", text: "done" },
      );
      const asked: string[] = [];
      const voting = (async () => {
        for (;;) {
          const ask = await s.events.waitFor("permission_request", (fr) => !asked.includes(fr.data.requestId), TURN_MS).catch(() => null);
          if (!ask) return;
          asked.push(ask.data.requestId);
          await jsonRequest(d.url, "POST", `/session/${s.sessionId}/permission/${ask.data.requestId}`, { outcome: { outcome: "selected", optionId: "proceed_once" } });
        }
      })();
      expect((await turn(d.url, s.sessionId, s.events, "change it")).data.stopReason).toBe("end_turn");
      const tools = s.events.frames.filter((fr) => fr.event === "session_update" && fr.data.update.sessionUpdate === "tool_call_update" && (fr.data.update.status === "completed" || fr.data.update.status === "failed"));
      const outcome = (id: string, askedIndex: number) => {
        const status = tools.find((fr) => fr.data.update.toolCallId === id)?.data.update.status;
        return status === "failed" ? "refused" : askedIndex >= 0 ? "asked" : "ran";
      };
      const asks = s.events.frames.filter((fr) => fr.event === "permission_request").map((fr) => fr.data.toolCall.toolCallId as string);
      // The agent's own ids, in the order the model made the calls.
      const [edit, shell] = s.events.frames.filter((fr) => fr.event === "session_update" && fr.data.update.sessionUpdate === "tool_call").map((fr) => fr.data.update.toolCallId as string);
      expect({ edit: outcome(edit!, asks.indexOf(edit!)), shell: outcome(shell!, asks.indexOf(shell!)) }).toEqual(expected);
      s.events.close();
      await d.stop();
      await voting;
    });
  }

  const errors: Array<[string, MockReply[], { errorKind?: string; message: string }]> = [
    ["401", [{ kind: "status", status: 401, message: "bad key" }], { errorKind: "auth_env_error", message: "HTTP 401" }],
    ["400", [{ kind: "status", status: 400, message: "bad request body" }], { message: "HTTP 400" }],
    ["persistent 500", Array.from({ length: 4 }, () => ({ kind: "status", status: 500, headers: { "retry-after-ms": "1" }, message: "boom" }) as MockReply), { message: "gave up after 3 retries" }],
    ["Retry-After too long", [{ kind: "status", status: 429, headers: { "retry-after": "3600" }, message: "slow down" }], { message: "asked to wait 3600 s" }],
    ["malformed frame", [{ kind: "malformed", text: "partial" }], { errorKind: "model_stream_interrupted", message: "stream" }],
    ["truncated stream", [{ kind: "truncated", text: "partial" }], { errorKind: "model_stream_interrupted", message: "finish" }],
  ];
  test("each kind of provider error ends the turn with the right turn_error", async () => {
    await using f = fixture();
    await using d = await f.start();
    const s = await openSession(d.url);
    for (const [what, replies, expected] of errors) {
      f.model.enqueue(...replies);
      const end = await turn(d.url, s.sessionId, s.events, `provoke ${what}`);
      expect({ what, event: end.event }).toEqual({ what, event: "turn_error" });
      expect(end.data.message).toContain(expected.message);
      if (expected.errorKind) expect(end.data.errorKind).toBe(expected.errorKind);
      else expect(end.data.errorKind === undefined || end.data.errorKind !== "auth_env_error").toBe(true);
    }
    s.events.close();
    await d.stop();
  });

  test("an MCP tool from a stdio test server is called in a turn", async () => {
    await using f = fixture({}, { tools: { approvalMode: "yolo" }, mcpServers: { test: { command: process.execPath, args: [MCP_SERVER] } } }, ["--trust-workspace"]);
    await using d = await f.start();
    const s = await openSession(d.url);
    f.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "through the daemon" } }] }, { kind: "text", text: "ok" });
    expect((await turn(d.url, s.sessionId, s.events, "use mcp")).event).toBe("turn_complete");
    const result = s.events.frames.find((fr) => fr.event === "session_update" && fr.data.update.sessionUpdate === "tool_call_update" && fr.data.update.status === "completed");
    expect(JSON.stringify(result!.data.update.content)).toContain("echo: through the daemon");
    s.events.close();
    await d.stop();
  });

  test("200,000 one-byte deltas reach subscribers as a few events; text before a failed round comes, with its promptId, before the turn_error", async () => {
    await using f = fixture();
    await using d = await f.start();
    const s = await openSession(d.url);
    const text = "abcdefghij".repeat(20_000);
    f.model.enqueue({ kind: "text", text, chunkChars: 1 });
    const end = await turn(d.url, s.sessionId, s.events, "tiny deltas");
    expect(end.event).toBe("turn_complete");
    const texts = s.events.frames.filter((fr) => fr.event === "session_update" && fr.data.update.sessionUpdate === "agent_message_chunk" && fr.envelope.promptId === end.data.promptId);
    console.error(`200,000 one-byte deltas through the daemon: ${texts.length} agent_message_chunk events, ${s.events.frames.length} events in all`);
    expect(texts.map((fr) => fr.data.update.content.text).join("")).toBe(text);
    expect(texts.length).toBeLessThan(2000);

    f.model.enqueue({ kind: "malformed", text: "partial" });
    const failed = await turn(d.url, s.sessionId, s.events, "break off");
    expect(failed.event).toBe("turn_error");
    const partial = s.events.frames.find((fr) => fr.event === "session_update" && fr.data.update.content?.text === "partial");
    expect(partial?.envelope.promptId).toBe(failed.data.promptId);
    expect(partial!.id!).toBeLessThan(failed.id!);
    s.events.close();
    await d.stop();
  });
});
