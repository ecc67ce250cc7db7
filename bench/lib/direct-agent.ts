/**
 * The agent's own start-up, without the daemon: spawn the agent child exactly as `svc serve` does
 * (same runtime binary, entry, `--acp`, cwd), then a tiny NDJSON client sends the daemon's
 * `initialize` and `session/new` and times the answers. Subtracted from the first `POST /session`,
 * this leaves the daemon's share.
 *
 * The child needs a stdin pipe, which `spawnTracked` does not offer, so it is spawned here and
 * stopped by PID in `finally`; should the bench die first, the agent sees EOF on stdin and exits
 * (the fake agent's default).
 */
import { cpuSeconds } from "./cpu.ts";

export interface AgentRuntime {
  /** The runtime binary and what it needs in its environment (`BUN_BE_BUN=1` when it is the compiled svc). */
  readonly execPath: string;
  readonly env: Readonly<Record<string, string>>;
  /** HOME, shared with the daemons whose children this is compared to (Bun's transpiler cache lives there). */
  readonly home: string;
}

export interface AgentStartTiming {
  /** From just before the spawn to the first byte on stdout, to the initialize answer, to the session/new answer. */
  readonly firstByteMs: number;
  readonly initializeMs: number;
  readonly sessionNewMs: number;
  /** CPU the child had used by its session/new answer. */
  readonly cpuMs: number | null;
}

const ANSWER_TIMEOUT_MS = 15_000;

export async function timeAgentStart(runtime: AgentRuntime, entry: string, cwd: string): Promise<AgentStartTiming> {
  const spawnedAt = performance.now();
  const child = Bun.spawn([runtime.execPath, entry, "--acp"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: runtime.home, ...runtime.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  // A child that does not answer in time is killed: its stdout then ends and `answer` throws.
  const watchdog = setTimeout(() => child.kill("SIGKILL"), ANSWER_TIMEOUT_MS);
  try {
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    /** Received text not yet split into lines (an unfinished line stays here). */
    let pending = "";
    let firstByteAt: number | null = null;
    const answer = async (id: number): Promise<number> => {
      for (;;) {
        for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.trim() === "") continue;
          const message = JSON.parse(line) as { id?: number; error?: unknown };
          if (message.id !== id) continue;
          if (message.error !== undefined) throw new Error(`agent answered request ${id} with ${JSON.stringify(message.error)}`);
          return performance.now();
        }
        const { done, value } = await reader.read();
        if (done) throw new Error(`agent exited (or gave no answer within ${ANSWER_TIMEOUT_MS} ms) before answering request ${id}`);
        firstByteAt ??= performance.now();
        pending += decoder.decode(value, { stream: true });
      }
    };
    const send = (message: unknown) => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      void child.stdin.flush();
    };
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "svc-bench", version: "0" },
      },
    });
    const initializedAt = await answer(1);
    send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd, mcpServers: [] } });
    const sessionAt = await answer(2);
    const cpu = cpuSeconds(child.pid);
    return {
      firstByteMs: (firstByteAt ?? initializedAt) - spawnedAt,
      initializeMs: initializedAt - spawnedAt,
      sessionNewMs: sessionAt - spawnedAt,
      cpuMs: cpu === null ? null : cpu * 1000,
    };
  } finally {
    clearTimeout(watchdog);
    child.kill("SIGKILL");
    await child.exited;
  }
}
