/**
 * `svc serve` with the fake ACP agent as its agent child (`SVC_CLI_ENTRY`), for the session and
 * event benches: port 0, a fresh workspace and SVC_HOME (whose settings turn the automatic title
 * off: its event, after a session's first turn, would land in the next round of a bench that
 * counts every frame), no session caps, the default log level
 * (the access log is part of the default configuration) into a scratch file. `home` is the HOME the
 * daemon and so its children get: shared across daemons like a user's, it keeps Bun's transpiler
 * cache (`~/.bun/install/cache`) warm for the agent, as on a real machine.
 * `stopAgentDaemon` stops the daemon by PID and then makes sure the agent children it started are
 * gone too (by PID, SIGKILL to the stragglers), so no process outlives the bench.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir, stopProcess } from "./procs.ts";
import { launch, type Launched } from "./servers.ts";

/** How long the agent children may take to go after their daemon has exited (its stop sequence is ~3 s at worst). */
const CHILDREN_GONE_MS = 4000;

export interface AgentDaemon extends Launched {
  readonly workspace: string;
}

export async function startAgentDaemon(svc: readonly string[], agentEntry: string, home: string, extraArgs: readonly string[] = []): Promise<AgentDaemon> {
  const workspace = scratchDir("ws");
  const svcHome = scratchDir("svc-home");
  writeFileSync(join(svcHome, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
  const launched = await launch({
    name: "svc serve (fake agent)",
    cmd: [...svc, "serve", "--port", "0", "--workspace", workspace, "--max-sessions", "0", "--max-total-sessions", "0", ...extraArgs],
    env: { PATH: process.env.PATH ?? "", HOME: home, SVC_HOME: svcHome, SVC_CLI_ENTRY: agentEntry },
    stderrPath: join(scratchDir("log"), "stderr.log"),
  });
  return { ...launched, workspace };
}

export interface DaemonStatus {
  readonly childPids: number[];
  /** Open SSE streams. */
  readonly sseStreams: number;
  /** The daemon's JS heap in use, MB (10^6 bytes): live objects plus garbage not yet collected. */
  readonly heapUsedMb: number;
}

/** From `GET /daemon/status`. */
export async function daemonStatus(url: string): Promise<DaemonStatus> {
  const response = await fetch(`${url}/daemon/status`);
  const { runtime } = (await response.json()) as {
    runtime: { channel: { childPids: number[] }; transport: { restSseActive: number }; memory: { heapUsedBytes: number } };
  };
  return { childPids: runtime.channel.childPids, sseStreams: runtime.transport.restSseActive, heapUsedMb: runtime.memory.heapUsedBytes / 1e6 };
}

/** True while `pid` exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

export async function stopAgentDaemon(daemon: AgentDaemon): Promise<void> {
  const children = await daemonStatus(daemon.url).then(
    (s) => s.childPids,
    () => [] as number[],
  );
  await stopProcess(daemon.proc);
  const deadline = performance.now() + CHILDREN_GONE_MS;
  while (children.some(alive) && performance.now() < deadline) await Bun.sleep(20);
  for (const pid of children.filter(alive)) {
    process.stderr.write(`bench: agent child ${pid} outlived its daemon; killing it\n`);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}
