/**
 * The built-in agent's front (`acp-front.ts`): it answers `initialize` and a plain `session/new`
 * exactly as the SDK app does, hands every other message to the SDK app with the connection, and
 * the app then serves the sessions the front opened, its own primer `initialize` never seen by
 * the client. Raw NDJSON, so what is compared is what goes on the wire.
 */
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { FRONT_LINE_BYTES } from "../../src/builtin-agent/acp-front.ts";
import { ACP_PROTOCOL_VERSION } from "../../src/builtin-agent/agent-core.ts";
import { until } from "../helpers/until.ts";
import { rawAgent, type Message, type RawAgent } from "./raw-agent.ts";

/** The messages with every session id replaced by a placeholder (ids are random). */
function withoutSessionIds(messages: Message[], ids: string[]): unknown {
  let text = JSON.stringify(messages);
  for (const id of ids) text = text.replaceAll(id, "<session>");
  return JSON.parse(text);
}

const sessionIdOf = (answer: Message) => (answer.result as { sessionId: string }).sessionId;

/** initialize (id 1), session/new (id 2), and the session's commands announcement; returns the messages from the initialize answer on, and the session id. */
async function handshake(a: RawAgent): Promise<{ messages: Message[]; sessionId: string }> {
  const from = a.messages.length;
  await a.request(1, "initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: "t", version: "1" } });
  const sessionId = sessionIdOf(await a.request(2, "session/new", { cwd: a.workspace, mcpServers: [] }));
  await a.answer(2);
  const announced = () => a.messages.some((m) => m.method === "session/update" && (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "available_commands_update");
  await until(announced, 10_000, "the commands announcement");
  return { messages: a.messages.slice(from), sessionId };
}

test("initialize and session/new are answered the same by the front and by the SDK app", async () => {
  await using front = await rawAgent();
  const byFront = await handshake(front);

  await using sdk = await rawAgent();
  // A method the front does not answer hands the SDK app the connection first (which refuses it before initialize).
  expect((await sdk.request(0, "svc/no-such-method", {})).error).toMatchObject({ code: -32600 });
  const bySdk = await handshake(sdk);

  expect(byFront.messages.map((m) => m.id ?? m.method)).toEqual([1, 2, "session/update"]);
  expect(withoutSessionIds(byFront.messages, [byFront.sessionId])).toEqual(withoutSessionIds(bySdk.messages, [bySdk.sessionId]) as Message[]);
});

test("after the handover the SDK app serves the front's session, and only the client's own ids are answered", async () => {
  await using a = await rawAgent();
  const { sessionId } = await handshake(a);
  expect((await a.request(3, "session/set_mode", { sessionId, modeId: "plan" })).result).toEqual({});
  const context = await a.request(4, "svc/status/session/context", { sessionId });
  expect(context.result).toMatchObject({ sessionId, state: { modes: { currentModeId: "plan" } } });
  const answered = a.messages.filter((m) => !("method" in m)).map((m) => m.id);
  expect(answered).toEqual([1, 2, 3, 4]);
});

test("session/new before initialize is refused as the SDK app refuses it, and the handshake then works", async () => {
  await using a = await rawAgent();
  const early = await a.request(1, "session/new", { cwd: a.workspace, mcpServers: [] });
  expect(early.error).toMatchObject({ code: -32600 });
  expect(JSON.stringify(early.error)).toContain("must be initialized");
  expect((await a.request(2, "initialize", { protocolVersion: 1 })).result).toMatchObject({ protocolVersion: 1 });
  expect(sessionIdOf(await a.request(3, "session/new", { cwd: a.workspace, mcpServers: [] }))).toBeString();
});

test("what the front does not read goes to the SDK app: a malformed line, a line past its bound", async () => {
  await using a = await rawAgent();
  await a.write("{not json\n");
  expect(await a.answer(null as unknown as number)).toMatchObject({ error: { code: -32700 } });
  const big = await a.request("init-big", "initialize", { protocolVersion: 1, _meta: { pad: "x".repeat(FRONT_LINE_BYTES) } });
  expect(big.result).toMatchObject({ protocolVersion: 1, agentInfo: { name: "svc" } });
  expect(sessionIdOf(await a.request("s", "session/new", { cwd: a.workspace, mcpServers: [] }))).toBeString();
});

test("the front answers a string id, a bad protocol version is the SDK's -32602, and closing stdin ends the agent with 0", async () => {
  await using a = await rawAgent();
  expect((await a.request("one", "initialize", { protocolVersion: 1 })).result).toMatchObject({ protocolVersion: 1 });
  expect((await a.request("two", "initialize", { protocolVersion: -1 })).error).toMatchObject({ code: -32602 });
  expect(await a.close()).toBe(0);
});

test("the protocol version the front answers with is the SDK's", () => {
  expect(ACP_PROTOCOL_VERSION).toBe(acp.PROTOCOL_VERSION);
});

test("requests sent together without waiting: the front answers its two first, the SDK app the rest, each once", async () => {
  await using a = await rawAgent();
  const line = (id: number, method: string, params: unknown) => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
  await a.write(line(1, "initialize", { protocolVersion: 1 }) + line(2, "session/new", { cwd: a.workspace, mcpServers: [] }) + line(3, "svc/no-such-method", {}) + line(4, "session/new", { cwd: a.workspace, mcpServers: [] }));
  await a.answer(3);
  await a.answer(4);
  const answers = a.messages.filter((m) => !("method" in m)).map((m) => [m.id, "result" in m ? "result" : (m.error as { code: number }).code]);
  expect(answers.slice(0, 2)).toEqual([
    [1, "result"],
    [2, "result"],
  ]);
  // The SDK app answers its requests as each finishes, not necessarily in order.
  expect(answers.slice(2).sort()).toEqual([
    [3, -32601],
    [4, "result"],
  ]);
});
