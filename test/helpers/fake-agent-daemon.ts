/**
 * Test daemons (`startDaemon`: in process, or the compiled binary under `SVC_TEST_TARGET=binary`) whose
 * agent child is the real fake agent (`test/fixtures/fake-agent.ts`), with its wire log switched on
 * so tests can see which children ran and what the daemon sent them.
 *
 *   await using d = await fakeAgentDaemon(["--max-sessions", "2"], { env: { FAKE_AGENT_NAME: "qwen-code" } });
 *   const { sessionId } = await d.createSession({ sessionScope: "thread" });
 *   await using events = await d.events(sessionId);
 *
 * `env` goes to the daemon (and so to the child): `FAKE_AGENT_*` variables script the agent.
 * `settings` is written to `$SVC_HOME/settings.json` for the boot only, with automatic titles off
 * (`ui.autoTitle: false`: their `session_metadata_updated` would interleave with the event
 * sequences tests pin) unless `settings.ui` says otherwise; a test that passes its own `SVC_HOME`
 * in `env` gets that home's settings as they are. Disposing stops the daemon
 * and then fails the test if any agent child it started is still alive (after killing it, so
 * nothing is left behind either way).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog, type WireEntry } from "../fixtures/fake-agent/wire-log.ts";
import { startChildDaemon, startDaemon, svcCommand, type StartOptions, type TestDaemon } from "./daemon.ts";
import { jsonRequest, type JsonReply } from "./json-request.ts";
import { expectPidsGone } from "./pids.ts";
import { openSse, type OpenOptions, type SseClient } from "./sse-client.ts";
import { tempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

/** The parts of `settings.json` these tests set. */
export interface DaemonSettingsDoc {
  policy?: { permissionStrategy?: string; consensusQuorum?: number };
  agent?: string;
  agents?: Record<string, { path?: string; model?: { baseUrl: string; model?: string; apiKeyEnv?: string } }>;
  ui?: { autoTitle?: boolean };
}

export interface FakeAgentDaemonOptions extends StartOptions {
  /** Written to `$SVC_HOME/settings.json` just for the boot (the config is read once, at start), then removed. */
  settings?: DaemonSettingsDoc;
  /** Run the daemon as a process of its own whatever the target (the target's command), e.g. to measure its memory. */
  ownProcess?: boolean;
}

export interface CreateReply {
  sessionId: string;
  workspaceCwd: string;
  attached: boolean;
  clientId: string;
  createdAt: string;
  modelApplied?: boolean;
  startupConfigApplied?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface FakeAgentDaemon extends TestDaemon {
  /** The fake agent's wire log (shared by every child of this daemon; each line names its pid). */
  readonly logPath: string;
  /** What the daemon sent its fake agents and what happened to them, one entry per line. */
  wire(): Promise<WireEntry[]>;
  /** The requests and notifications the daemon sent its agents with `method` (only those for `sessionId`, when given). */
  sentToAgent(method: string, sessionId?: string): Promise<WireEntry[]>;
  /** Pids of every agent child started so far, in start order. */
  agentPids(): Promise<number[]>;
  /** Waits until exactly `n` children have started and returns their pids. */
  waitForAgents(n: number): Promise<number[]>;
  /** A JSON request; `body` is parsed when the response has one. */
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonReply<T>>;
  /** `POST /session`, asserting 200. */
  createSession(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<CreateReply>;
  /** Opens `GET /session/:id/events` (`query` is appended verbatim, e.g. `?maxQueued=16`). */
  events(sessionId: string, headers?: Record<string, string>, options?: Omit<OpenOptions, "headers"> & { query?: string }): Promise<SseClient>;
}

export async function fakeAgentDaemon(args: string[] = [], options: FakeAgentDaemonOptions = {}): Promise<FakeAgentDaemon> {
  const { settings, ownProcess, ...start } = options;
  const home = process.env.SVC_HOME!;
  const settingsFile = join(home, "settings.json");
  const logDir = tempDir("svc-wire-");
  const logPath = join(logDir.path, "wire.jsonl");
  mkdirSync(home, { recursive: true });
  writeFileSync(settingsFile, JSON.stringify({ ui: { autoTitle: false }, ...settings }));
  let daemon: TestDaemon;
  try {
    const startOptions = { ...start, env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: logPath, ...start.env } };
    daemon = ownProcess ? await startChildDaemon(svcCommand(), args, startOptions) : await startDaemon(args, startOptions);
  } catch (err) {
    await logDir[Symbol.asyncDispose]();
    throw err;
  } finally {
    rmSync(settingsFile, { force: true });
  }
  const wire = () => readWireLog(logPath);
  const agentPids = async () => (await wire()).filter((e) => e.event === "start").map((e) => e.pid);
  const json = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => jsonRequest<T>(daemon.url, method, path, body, headers);
  return {
    ...daemon,
    logPath,
    wire,
    async sentToAgent(method, sessionId) {
      return (await wire()).filter((e) => e.method === method && (sessionId === undefined || (e.params as { sessionId?: string } | undefined)?.sessionId === sessionId));
    },
    agentPids,
    async waitForAgents(n) {
      const pids = await until(async () => {
        const p = await agentPids();
        return p.length >= n ? p : null;
      }, 5000, `${n} agent child(ren) to start`);
      if (pids.length !== n) throw new Error(`expected ${n} agent children, saw ${pids.length}`);
      return pids;
    },
    json,
    async createSession(body = {}, headers = {}) {
      const reply = await json<CreateReply>("POST", "/session", body, headers);
      if (reply.status !== 200) throw new Error(`POST /session answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    events: (sessionId, headers = {}, { query = "", ...open } = {}) =>
      openSse(`${daemon.url}/session/${encodeURIComponent(sessionId)}/events${query}`, { ...open, headers }),
    async [Symbol.asyncDispose]() {
      try {
        await daemon.stop();
        await expectPidsGone(await agentPids());
      } finally {
        await daemon[Symbol.asyncDispose]();
        await logDir[Symbol.asyncDispose]();
      }
    },
  };
}
