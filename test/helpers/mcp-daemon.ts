/**
 * The MCP integration tests' setting: the built-in agent behind a daemon that takes a bearer token,
 * the mock model, a workspace (with `.svc/settings.json` when `local` is given) and a data dir whose
 * host settings ask nothing (`yolo`), make no automatic title (its model request would take a reply
 * queued for the session's next turn) and add `host`. Against the sources or the binary, as
 * `startDaemon` runs them. Beside it, what those tests do with a daemon: open a session with its
 * event stream, run a turn to its end, read the tools the model was offered and the servers listed.
 *
 *   await using f = mcpFixture({ token: TOKEN, prefix: "m-rt" });
 *   await using d = await f.start(["--trust-workspace"]);
 *   const s = await openMcpSession(d, f.auth);
 *   await mcpTurn(d, s, "use the tool", f.auth);
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "./daemon.ts";
import { jsonRequest } from "./json-request.ts";
import { openSse, type SseClient } from "./sse-client.ts";
import { tempDir, type TempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

/** The stdio MCP server the tests declare (`test/fixtures/mcp-test-server.ts`). */
export const MCP_TEST_SERVER = join(import.meta.dir, "..", "fixtures", "mcp-test-server.ts");
/** How long a turn may take. */
const TURN_MS = 20_000;

/** A declaration of the test server, with `extra` members. */
export const stdioServer = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [MCP_TEST_SERVER], ...extra });

export interface McpFixture extends AsyncDisposable {
  readonly model: MockModel;
  readonly ws: TempDir;
  readonly home: TempDir;
  /** The data dir's `settings.json`. */
  readonly hostFile: string;
  /** The bearer header the daemon takes. */
  readonly auth: Record<string, string>;
  start(args?: string[]): Promise<TestDaemon>;
}

export interface McpFixtureOptions {
  readonly token: string;
  /** Names the temp folders. */
  readonly prefix: string;
  /** The workspace's `.svc/settings.json`; none when absent. */
  readonly local?: Record<string, unknown> | null;
  /** More host settings. */
  readonly host?: Record<string, unknown>;
}

export function mcpFixture(options: McpFixtureOptions): McpFixture {
  const model = startMockModel();
  const ws = tempDir(`${options.prefix}-ws-`);
  const home = tempDir(`${options.prefix}-home-`);
  if (options.local != null) {
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify(options.local));
  }
  const hostFile = join(home.path, "settings.json");
  writeFileSync(hostFile, JSON.stringify({ ui: { autoTitle: false }, tools: { approvalMode: "yolo" }, ...options.host }));
  const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
  return {
    model,
    ws,
    home,
    hostFile,
    auth: { Authorization: `Bearer ${options.token}` },
    start: (args = []) => startDaemon(["--token", options.token, ...args], { workspace: ws.path, env }),
    async [Symbol.asyncDispose]() {
      await model[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

export interface McpSession {
  readonly sessionId: string;
  readonly clientId: string;
  readonly events: SseClient;
}

/** A new session, its event stream open from the first event. */
export async function openMcpSession(d: TestDaemon, auth: Record<string, string>): Promise<McpSession> {
  const created = await jsonRequest(d.url, "POST", "/session", {}, auth);
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  return { sessionId, clientId: created.body.clientId as string, events: await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0", ...auth } }) };
}

/** Prompts `text` and waits for the turn's end (`turn_complete` or `turn_error`), which it returns. */
export async function mcpTurn(d: TestDaemon, s: McpSession, text: string, auth: Record<string, string>) {
  const reply = await jsonRequest(d.url, "POST", `/session/${s.sessionId}/prompt`, { prompt: [{ type: "text", text }] }, auth);
  if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const promptId = reply.body.promptId as string;
  return await until(() => s.events.frames.find((f) => (f.event === "turn_complete" || f.event === "turn_error") && f.data.promptId === promptId), TURN_MS, "the turn's end");
}

/** The names of the tools the model was offered in its last request. */
export function offeredTools(model: MockModel): string[] {
  const last = model.requests.at(-1) as { tools?: Array<{ function?: { name?: string } }> };
  return (last.tools ?? []).map((t) => t.function?.name ?? "");
}

/** The servers `GET /workspace/mcp` lists, as `name:mcpStatus`. */
export async function mcpServerStates(d: TestDaemon, auth: Record<string, string>): Promise<string[]> {
  const listed = await jsonRequest(d.url, "GET", "/workspace/mcp", undefined, auth);
  return (listed.body.servers as Array<{ name: string; mcpStatus: string }>).map((c) => `${c.name}:${c.mcpStatus}`);
}
