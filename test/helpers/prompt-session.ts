/**
 * Daemons wired to the fake agent, and live sessions on them, for the prompt, event and permission
 * tests: `await using d = await fakeAgentDaemon(flags, { settings })`, then
 * `await using s = await openSession(d)`; dispose closes the session (DELETE) and stops the daemon.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { REPO_ROOT, startDaemon, type StartOptions, type TestDaemon } from "./daemon.ts";
import { openSse, type OpenOptions, type SseClient, type SseFrame } from "./sse-client.ts";
import { tempDir } from "./temp-dir.ts";

export const FAKE_AGENT = join(REPO_ROOT, "test", "fixtures", "fake-agent.ts");

export interface DaemonSettingsDoc {
  policy?: { permissionStrategy?: string; consensusQuorum?: number };
}

export interface FakeAgentTestDaemon extends TestDaemon {
  /** What the daemon sent the fake agent (its `FAKE_AGENT_LOG`), one entry per message. */
  wire(): Promise<Array<Record<string, unknown>>>;
}

/**
 * A daemon whose agent child is the fake agent, with its wire log on. `settings` is written to
 * `$SVC_HOME/settings.json` just for the boot (the config is read once, at start) and removed
 * right after.
 */
export async function fakeAgentDaemon(args: string[] = [], options: StartOptions & { settings?: DaemonSettingsDoc } = {}): Promise<FakeAgentTestDaemon> {
  const home = process.env.SVC_HOME!;
  const file = join(home, "settings.json");
  const logDir = tempDir("svc-wire-");
  const logPath = join(logDir.path, "wire.jsonl");
  if (options.settings) {
    mkdirSync(home, { recursive: true });
    writeFileSync(file, JSON.stringify(options.settings));
  }
  let d: TestDaemon;
  try {
    d = await startDaemon(args, { ...options, env: { SVC_CLI_ENTRY: FAKE_AGENT, FAKE_AGENT_LOG: logPath, ...options.env } });
  } catch (err) {
    await logDir[Symbol.asyncDispose]();
    throw err;
  } finally {
    if (options.settings) rmSync(file, { force: true });
  }
  return {
    ...d,
    wire: () => readWireLog(logPath),
    async [Symbol.asyncDispose]() {
      try {
        await d[Symbol.asyncDispose]();
      } finally {
        await logDir[Symbol.asyncDispose]();
      }
    },
  };
}

export interface JsonResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export interface TestSession extends AsyncDisposable {
  readonly id: string;
  /** The client id minted for the creator. */
  readonly clientId: string;
  readonly daemon: TestDaemon;
  /** Registers one more client on a `single`-scope session (an attach) and returns its minted id. */
  addClient(): Promise<string>;
  /** Opens the session's event stream. */
  events(headers?: Record<string, string>, options?: Omit<OpenOptions, "headers"> & { query?: string }): Promise<SseClient>;
  /** POST /session/:id/prompt with one text block (or `body` as given). */
  prompt(text: string, options?: { clientId?: string | null; body?: unknown }): Promise<JsonResult>;
  /** POST /session/:id/permission/:requestId. */
  vote(requestId: string, outcome: unknown, options?: { clientId?: string | null }): Promise<JsonResult>;
  cancel(options?: { clientId?: string | null }): Promise<Response>;
  pending(): Promise<JsonResult>;
}

async function result(response: Response): Promise<JsonResult> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

function clientHeader(clientId: string | null | undefined): Record<string, string> {
  return clientId ? { "X-Svc-Client-Id": clientId } : {};
}

async function createSession(d: TestDaemon, scope: "single" | "thread") {
  const response = await d.fetch("/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sessionScope: scope }) });
  if (response.status !== 200) throw new Error(`POST /session answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { sessionId: string; clientId: string; attached: boolean };
}

/**
 * A live session of its own: `thread` scope (default) makes a new one every time; `single` is the
 * workspace's default session, to which `addClient` attaches further clients. It resolves once the
 * agent's opening `available_commands_update` has been published, so a test starts on a quiet bus.
 */
export async function openSession(d: TestDaemon, scope: "single" | "thread" = "thread"): Promise<TestSession> {
  const created = await createSession(d, scope);
  const id = created.sessionId;
  const base = `/session/${encodeURIComponent(id)}`;
  if (!created.attached) {
    await using opening = await openSse(`${d.url}${base}/events`, { headers: { "Last-Event-ID": "0" } });
    await opening.waitFor("session_update", (f) => f.data.update?.sessionUpdate === "available_commands_update");
  }
  const post = (path: string, body: unknown, clientId: string | null | undefined) =>
    d.fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json", ...clientHeader(clientId) }, body: JSON.stringify(body) });
  return {
    id,
    clientId: created.clientId,
    daemon: d,
    async addClient() {
      const attached = await createSession(d, "single");
      if (attached.sessionId !== id || !attached.attached) throw new Error("addClient needs the workspace's default (single-scope) session");
      return attached.clientId;
    },
    events: (headers = {}, options = {}) => openSse(`${d.url}${base}/events${options.query ?? ""}`, { ...options, headers }),
    prompt: async (text, options = {}) => result(await post("/prompt", options.body ?? { prompt: [{ type: "text", text }] }, options.clientId)),
    vote: async (requestId, outcome, options = {}) => result(await post(`/permission/${encodeURIComponent(requestId)}`, { outcome }, options.clientId)),
    cancel: (options = {}) => d.fetch(`${base}/cancel`, { method: "POST", headers: clientHeader(options.clientId) }),
    pending: async () => result(await d.fetch(`${base}/pending-prompts`)),
    async [Symbol.asyncDispose]() {
      const closed = await d.fetch(base, { method: "DELETE" }).catch(() => null);
      await closed?.body?.cancel();
    },
  };
}

/** Consumes frames up to and including the terminal event (`turn_complete`/`turn_error`) of `promptId`. */
export async function untilTurnEnds(sse: SseClient, promptId: string, timeoutMs = 5000): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = await sse.next(Math.max(1, deadline - Date.now()));
    if (frame === null) throw new Error(`stream ended before prompt ${promptId} did (seen: ${out.map((f) => f.event).join(", ")})`);
    out.push(frame);
    if ((frame.event === "turn_complete" || frame.event === "turn_error") && frame.data.promptId === promptId) return out;
  }
}

/** Runs one prompt to its end while watching a live stream; returns its id and the turn's frames. */
export async function completeTurn(s: TestSession, text: string): Promise<{ promptId: string; frames: SseFrame[] }> {
  await using sse = await s.events();
  const admitted = await s.prompt(text);
  if (admitted.status !== 202) throw new Error(`prompt answered ${admitted.status}: ${JSON.stringify(admitted.body)}`);
  return { promptId: admitted.body.promptId, frames: await untilTurnEnds(sse, admitted.body.promptId) };
}
