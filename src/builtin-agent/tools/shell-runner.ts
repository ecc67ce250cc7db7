/**
 * Runs the model's shell commands: `/bin/sh -c <command>` in the workspace, in its own session and
 * process group, with the agent's environment minus the scrub list plus a per-command marker. When
 * the command's shell exits, or on timeout or cancel (a cancelled turn, a closed session), the whole
 * group is killed and then everything else the command started (`command-sweep.ts`: its marked
 * processes, and the orphans the agent adopted, which covers `setsid`, `nohup`, double forks and
 * `env -i`), so nothing a command started outlives it; the result is returned once those are gone.
 * `killAll` does the same for every running command, and every adopted orphan, when the agent stops.
 */
import type { Subprocess } from "bun";
import { awaitGone, startTimeOf, sweepCommand, type CommandRecord } from "../command-sweep.ts";
import { markerEnv, newMarker } from "../marked-processes.ts";

/** Bytes of combined stdout+stderr kept per command (under the model cap of one tool result, so the note on a cut is always seen); past it output is drained and counted, not kept. */
export const SHELL_OUTPUT_CAP_BYTES = 16 * 1024;
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
export const MAX_SHELL_TIMEOUT_MS = 600_000;
/** After SIGTERM on timeout or cancel, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** How long the output pipes may stay open after the group was killed (a stuck reader is abandoned). */
const DRAIN_AFTER_EXIT_MS = 1000;

export interface RunOptions {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  readonly input?: string;
  /** Added to the environment (the marker still wins). */
  readonly env?: Readonly<Record<string, string>>;
  /** Keep stderr apart, in `errorOutput`, each stream with its own cap (hooks read a decision from stdout). */
  readonly separate?: boolean;
  /** Bytes kept per output (default SHELL_OUTPUT_CAP_BYTES); past it output is drained and counted, not kept. */
  readonly capBytes?: number;
}

export interface ShellResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** stdout and stderr together, or stdout alone with `separate`. */
  readonly output: string;
  /** stderr, with `separate`; else "". */
  readonly errorOutput: string;
  /** Bytes produced in all, including those past the cap. */
  readonly totalBytes: number;
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already empty
  }
}

export class ShellRunner {
  constructor(
    private readonly cwd: string,
    /** What commands (and the tools' helper programs, such as ripgrep) run with. */
    readonly env: Readonly<Record<string, string>>,
    /** Running commands, each with what its sweep needs (shared with the runners `in` makes). */
    private readonly running = new Map<Subprocess, CommandRecord>(),
  ) {}

  /** A runner whose commands run in `cwd` (a worktree session's checkout), killed with this one's by `killAll`. */
  in(cwd: string): ShellRunner {
    return new ShellRunner(cwd, this.env, this.running);
  }

  async run(command: string, options: RunOptions): Promise<ShellResult> {
    const marker = newMarker();
    const input = options.input === undefined ? "ignore" : new Blob([options.input]);
    const proc = Bun.spawn(["/bin/sh", "-c", command], { cwd: this.cwd, env: { ...this.env, ...options.env, ...markerEnv(marker) }, stdin: input, stdout: "pipe", stderr: "pipe", detached: true });
    const record: CommandRecord = { pid: proc.pid, marker, startTime: startTimeOf(proc.pid) };
    this.running.set(proc, record);
    const cap = options.capBytes ?? SHELL_OUTPUT_CAP_BYTES;
    const sinks = [{ kept: [] as Uint8Array[], bytes: 0 }, { kept: [] as Uint8Array[], bytes: 0 }];
    const [out, err] = options.separate ? sinks : [sinks[0]!, sinks[0]!];
    let totalBytes = 0;
    const pump = async (stream: ReadableStream<Uint8Array>, sink: (typeof sinks)[number]) => {
      const reader = stream.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        const chunk = next.value;
        totalBytes += chunk.length;
        if (sink.bytes < cap) {
          const part = chunk.subarray(0, cap - sink.bytes);
          sink.kept.push(part);
          sink.bytes += part.length;
        }
      }
    };
    const pumped = Promise.all([pump(proc.stdout, out!), pump(proc.stderr, err!)]).catch(() => {});

    let timedOut = false;
    let cancelled = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: "timeout" | "cancel") => {
      if (why === "timeout") timedOut = true;
      else cancelled = true;
      killGroup(proc.pid, "SIGTERM");
      graceTimer ??= setTimeout(() => killGroup(proc.pid, "SIGKILL"), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("cancel");
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
    let swept: number[];
    try {
      await proc.exited;
    } finally {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal.removeEventListener("abort", onAbort);
      // Whatever the command left running goes with it: its group, then anything that left the group.
      killGroup(proc.pid, "SIGKILL");
      this.running.delete(proc);
      swept = sweepCommand(record, this.shells());
    }
    await Promise.all([awaitGone(swept, this.shells()), Promise.race([pumped, Bun.sleep(DRAIN_AFTER_EXIT_MS)])]);
    const text = (sink: (typeof sinks)[number]) => new TextDecoder().decode(Buffer.concat(sink.kept));
    return {
      exitCode: proc.exitCode,
      signal: proc.signalCode === null ? null : String(proc.signalCode),
      output: text(sinks[0]!),
      errorOutput: options.separate ? text(sinks[1]!) : "",
      totalBytes,
      truncated: totalBytes > sinks[0]!.bytes + (options.separate ? sinks[1]!.bytes : 0),
      timedOut,
      cancelled,
    };
  }

  /**
   * SIGKILLs every running command's group and what it started, then every orphan the agent
   * adopted (the agent is stopping). Synchronous, for exit handlers.
   */
  killAll(): void {
    const shells = this.shells();
    for (const [proc, record] of this.running) {
      killGroup(proc.pid, "SIGKILL");
      sweepCommand(record, shells);
    }
    sweepCommand(null, shells);
  }

  /** The pids of the running commands' shells (children of the agent that are no orphans). */
  private shells(): Set<number> {
    return new Set([...this.running.values()].map((r) => r.pid));
  }
}
