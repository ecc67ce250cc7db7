/**
 * In-process daemons whose agent child is the real fake agent (`test/fixtures/fake-agent.ts`),
 * with its wire log switched on so tests can see which children ran and what the daemon sent them.
 *
 *   await using d = await daemonWithFakeAgent(["--max-sessions", "2"], { FAKE_AGENT_NAME: "qwen-code" });
 *   const { body } = await d.json("POST", "/session", { sessionScope: "thread" });
 *
 * Disposing stops the daemon and then fails the test if any agent child it started is still
 * alive (after killing it, so nothing is left behind either way).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { startDaemon, type TestDaemon } from "./daemon.ts";
import { tempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

export { FAKE_AGENT_ENTRY };

/** How long a stopped daemon's children may take to disappear (the stop sequence is ~3 s at worst). */
export const CHILD_GONE_TIMEOUT_MS = 6000;

export type WireEntry = Record<string, unknown> & { pid: number };

export interface JsonReply<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface FakeAgentDaemon extends TestDaemon {
  /** The fake agent's wire log (shared by every child of this daemon; each line names its pid). */
  readonly logPath: string;
  wire(): Promise<WireEntry[]>;
  /** Pids of every agent child started so far, in start order. */
  agentPids(): Promise<number[]>;
  /** Waits until exactly `n` children have started and returns their pids. */
  waitForAgents(n: number): Promise<number[]>;
  /** A JSON request; `body` is parsed when the response has one. */
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonReply<T>>;
  /** `POST /session`, asserting 200. */
  createSession(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<CreateReply>;
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

/** True once `pid` no longer exists (a zombie waiting for its reaper counts as gone: it cannot run). */
export function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

export const pidAlive = (pid: number) => !pidGone(pid);

/** Waits for every pid to be gone; on timeout kills the stragglers' groups and throws. */
export async function expectPidsGone(pids: readonly number[], timeoutMs = CHILD_GONE_TIMEOUT_MS, what = "agent children"): Promise<void> {
  try {
    await until(() => pids.every(pidGone), timeoutMs, `${what} ${pids.join(", ")} to exit`);
  } catch (err) {
    for (const pid of pids.filter(pidAlive)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
    }
    throw err;
  }
}

export async function jsonRequest<T = any>(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonReply<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown = null;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/**
 * Starts a daemon on port 0 with the fake agent as its child. `env` goes to the daemon (and so to
 * the child): `FAKE_AGENT_*` variables script the agent.
 */
export async function daemonWithFakeAgent(args: string[] = [], env: Record<string, string | undefined> = {}, options: { workspace?: string } = {}): Promise<FakeAgentDaemon> {
  const logDir = tempDir("svc-wire-");
  const logPath = join(logDir.path, "wire.jsonl");
  let daemon: TestDaemon;
  try {
    daemon = await startDaemon(args, { env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: logPath, ...env }, ...options });
  } catch (err) {
    await logDir[Symbol.asyncDispose]();
    throw err;
  }
  const wire = async () => (await readWireLog(logPath)) as WireEntry[];
  const agentPids = async () => (await wire()).filter((e) => e.event === "start").map((e) => e.pid);
  const json = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => jsonRequest<T>(daemon.url, method, path, body, headers);
  return {
    ...daemon,
    logPath,
    wire,
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
    async [Symbol.asyncDispose]() {
      try {
        await daemon.daemon.stop(1000);
        await expectPidsGone(await agentPids());
      } finally {
        await daemon[Symbol.asyncDispose]();
        await logDir[Symbol.asyncDispose]();
      }
    },
  };
}
