/**
 * One agent child process: spawned as the leader of its own session and process group in the
 * workspace directory (the built-in agent with its model keys on an inherited descriptor rather
 * than in its environment, `config/agent-keys.ts`), stderr pumped into the log with a bounded tail,
 * exit observed, and a bounded stop sequence: close stdin → grace → SIGTERM to the group → grace →
 * SIGKILL to the group (each signal also to the members of its family outside the group). On the
 * daemon's shutdown the sequence is hurried so the whole shutdown fits its 2 s promise: stdin closed
 * and SIGTERM at once, SIGKILL SHUTDOWN_TERM_GRACE_MS later (a stop already under way jumps ahead the
 * same way). Once it has exited, on any path, whatever it started is swept (`agent-family.ts`), and the orphan watcher keeps the family
 * registered until the sweep finds it empty.
 */
import type { Subprocess } from "bun";
import { closeSync, writeSync } from "node:fs";
import { devNull } from "node:os";
import { AGENT_KEYS_FD, AGENT_KEYS_FD_VAR, encodeHandedKeys, splitAgentEnv, type HandedProvider } from "../config/agent-keys.ts";
import type { AgentLaunch } from "../config/config.ts";
import type { Logger } from "../logging/logger.ts";
import { childEnv } from "./child-env.ts";
import { cliEntryStatus, MissingCliEntryError } from "./cli-entry.ts";
import { AgentFamily } from "./agent-family.ts";
import { FAMILY_MARKER_VAR, type OrphanReaper } from "./orphan-reaper.ts";
import { AgentStartError } from "./start-failure.ts";
import { StderrTail, pumpStderr } from "./stderr-tail.ts";

/** Stop sequence budgets. */
export const STDIN_CLOSE_GRACE_MS = 1500;
export const SIGTERM_GRACE_MS = 1500;
/**
 * On the daemon's shutdown: SIGTERM comes with stdin's close, SIGKILL this long after. Tools outside
 * the agent's group get SIGTERM at the same moment and the sweep's FAMILY_TERM_GRACE_MS from it.
 */
export const SHUTDOWN_TERM_GRACE_MS = 1200;
/** Stderr lines logged when a child dies unexpectedly, and how long to wait for its last ones. */
const TAIL_LINES_REPORTED = 10;
const STDERR_DRAIN_MS = 250;

export interface ExitInfo {
  readonly exitCode: number | null;
  readonly signalCode: string | null;
}

/**
 * Bun's flags for a script agent: bun acting as a runtime reads `.env*` and `bunfig.toml` from its
 * cwd, which is the workspace, so an untrusted workspace could set the agent's variables (a
 * provider's base URL, to send the key elsewhere) or preload code into it. Neither autoload is
 * wanted: `--no-env-file` turns off the `.env*` files, and an empty config (the null device)
 * replaces `<cwd>/bunfig.toml`. `--no-install` stops bun's auto-install: an entry with no
 * `node_modules` above it would otherwise fetch whatever it imports from a registry at start.
 */
export const SCRIPT_RUNTIME_FLAGS: readonly string[] = ["--no-env-file", `--config=${devNull}`, "--no-install"];

/**
 * The argv of a child: `[runtime, flags, entry?, ...args, ...extraArgs]` (a native agent: `[entry,
 * ...args, ...extraArgs]`) and extra environment.
 */
export function childCommand(launch: AgentLaunch, extraArgs: readonly string[] = []): { argv: string[]; env: Record<string, string> } {
  if (launch.cliEntry === null) throw new MissingCliEntryError(cliEntryStatus(launch), launch.agent);
  const args = [...launch.cliArgs, ...extraArgs];
  if (launch.runtime === "native") return { argv: [launch.cliEntry.path, ...args], env: {} };
  // A compiled binary runs its own embedded entry when started bare (built with both autoloads off);
  // any other entry needs it to act as bun.
  if (launch.compiled && launch.cliEntry.source === "argv") return { argv: [launch.execPath, ...args], env: {} };
  return { argv: [launch.execPath, ...SCRIPT_RUNTIME_FLAGS, launch.cliEntry.path, ...args], env: launch.compiled ? { BUN_BE_BUN: "1" } : {} };
}

export interface SpawnOptions {
  readonly launch: AgentLaunch;
  readonly cwd: string;
  /** Profile-specific variables. */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** Arguments after the launch's own (the built-in agent's trust decision). */
  readonly extraArgs?: readonly string[];
  readonly logger: Logger;
  readonly reaper: OrphanReaper;
  /** Values replaced in the child's stderr before it is logged (`stderr-secrets.ts`). */
  readonly secrets: readonly string[];
  /**
   * The built-in agent's key variables: given, they reach the child as a key document on an
   * inherited descriptor instead of its environment, which also loses the scrub list's other names
   * (`config/agent-keys.ts`). Not where extra descriptors cannot be inherited (Windows).
   */
  readonly keyNames?: ReadonlySet<string>;
  /** With `keyNames`: the providers set up through the API, handed over in the same key document. */
  readonly providers?: readonly HandedProvider[];
}

/** The child's environment, and the key document to hand it when it takes one. */
function spawnEnv(options: SpawnOptions, commandEnv: Readonly<Record<string, string>>, familyValue: string): { env: Record<string, string>; keys: Uint8Array | null } {
  // The family marker comes first, where the orphan watcher looks for it: the daemon's marker (which
  // the watcher matches as a prefix) and this agent's own suffix (which its family matches whole).
  const env = { [FAMILY_MARKER_VAR]: familyValue, ...childEnv(options.launch.baseEnv, { ...commandEnv, ...options.extraEnv }) };
  if (options.keyNames === undefined || process.platform === "win32") return { env, keys: null };
  const split = splitAgentEnv(env, options.keyNames);
  try {
    return { env: { ...split.env, [AGENT_KEYS_FD_VAR]: String(AGENT_KEYS_FD) }, keys: encodeHandedKeys(split.keys, options.providers) };
  } catch (err) {
    throw AgentStartError.keysNotDelivered((err as Error).message);
  }
}

/** Writes the whole key document to the parent's end of the child's key descriptor, then closes it. */
function handKeys(fd: number, keys: Uint8Array): void {
  try {
    for (let written = 0; written < keys.length; ) written += writeSync(fd, keys, written);
  } finally {
    closeSync(fd);
  }
}

export class AgentProcess {
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  /** The process exited and its family is gone (or outlived SIGKILL and is watched in the background). */
  readonly settled: Promise<ExitInfo>;
  private readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  private readonly stderr: StderrTail;
  private readonly family: AgentFamily;
  private exitInfo: ExitInfo | null = null;
  private stopping: Promise<ExitInfo> | null = null;
  /** When the stop was hurried (performance.now()), once it is. */
  private hurriedAt: number | null = null;
  private hurry!: () => void;
  private readonly hurried = new Promise<void>((resolve) => (this.hurry = resolve));

  constructor(options: SpawnOptions) {
    const command = childCommand(options.launch, options.extraArgs);
    const log = options.logger;
    const familyValue = `${options.reaper.marker}.${crypto.randomUUID()}`;
    const { env, keys } = spawnEnv(options, command.env, familyValue);
    this.proc = Bun.spawn(command.argv, {
      cwd: options.cwd,
      env,
      // The key document's descriptor is the child's fd 3 (AGENT_KEYS_FD).
      stdio: keys === null ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    if (keys !== null)
      try {
        handKeys(this.proc.stdio[AGENT_KEYS_FD] as number, keys);
      } catch (err) {
        this.proc.kill("SIGKILL");
        throw AgentStartError.keysNotDelivered(`writing them failed (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
    this.pid = this.proc.pid;
    options.reaper.track(this.pid);
    this.stderr = new StderrTail((line) => log.debug("agent stderr", { pid: this.pid, line }), options.secrets);
    const pumped = pumpStderr(this.proc.stderr, this.stderr);
    this.exited = this.proc.exited.then(async () => {
      const info: ExitInfo = { exitCode: this.proc.exitCode, signalCode: this.proc.signalCode === null ? null : String(this.proc.signalCode) };
      this.exitInfo = info;
      log.info("agent exited", { pid: this.pid, exitCode: info.exitCode, signal: info.signalCode });
      // An exit nobody asked for is reported with what the child last said on stderr.
      if (this.stopping === null && info.exitCode !== 0) {
        await Promise.race([pumped, Bun.sleep(STDERR_DRAIN_MS)]);
        const tail = this.stderr.tail().slice(-TAIL_LINES_REPORTED);
        if (tail.length > 0) log.warn("agent died unexpectedly; last stderr lines follow", { pid: this.pid, lines: tail.length });
        for (const line of tail) log.warn("agent stderr", { pid: this.pid, line });
      }
      return info;
    });
    const family = (this.family = new AgentFamily(this.pid, options.reaper, log, `${FAMILY_MARKER_VAR}=${familyValue}`));
    family.follow();
    // The sweep starts at the exit itself, not after the crash report's wait for stderr.
    this.settled = Promise.all([this.exited, this.proc.exited.then(() => family.sweep())]).then(([info]) => info);
    log.info("agent spawned", { pid: this.pid, cwd: options.cwd });
  }

  get stdin(): Subprocess<"pipe", "pipe", "pipe">["stdin"] {
    return this.proc.stdin;
  }

  get stdout(): ReadableStream<Uint8Array> {
    return this.proc.stdout;
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  /** The last lines the child wrote to stderr (bounded). */
  stderrTail(): readonly string[] {
    return this.stderr.tail();
  }

  /**
   * Bounded stop: close stdin, then SIGTERM, then SIGKILL, each to the whole process group and to
   * the family outside it (tools in sessions of their own), so the tools' SIGTERM grace runs
   * alongside the agent's and the whole stop fits the shutdown budget; resolves once the family is
   * swept too. `shuttingDown` hurries the sequence (see the file comment), also one under way.
   */
  stop(shuttingDown = false): Promise<ExitInfo> {
    if (shuttingDown && this.hurriedAt === null) {
      this.hurriedAt = performance.now();
      this.hurry();
    }
    this.stopping ??= (async () => {
      if (this.exitInfo === null) {
        try {
          this.proc.stdin.end();
        } catch {
          // already closed
        }
        if ((await this.exitedBy(performance.now() + STDIN_CLOSE_GRACE_MS, false)) === null) {
          this.signalFamily("SIGTERM");
          if ((await this.exitedBy(performance.now() + SIGTERM_GRACE_MS, true)) === null) this.signalFamily("SIGKILL");
        }
      }
      return await this.settled;
    })();
    return this.stopping;
  }

  /**
   * How the child ended, if it does by `deadline` (performance.now() time) or, once the stop is
   * hurried, by the hurried deadline: at once for the stdin step, SHUTDOWN_TERM_GRACE_MS after the
   * hurry for the SIGTERM step; null while it still runs.
   */
  private async exitedBy(deadline: number, termStep: boolean): Promise<ExitInfo | null> {
    for (;;) {
      const hurriedUntil = this.hurriedAt === null ? Infinity : termStep ? this.hurriedAt + SHUTDOWN_TERM_GRACE_MS : this.hurriedAt;
      const left = Math.min(deadline, hurriedUntil) - performance.now();
      if (left <= 0) return this.exitInfo;
      const wasHurried = this.hurriedAt !== null;
      const exit = await this.exitedWithin(left, wasHurried ? undefined : this.hurried);
      // Timed out, or hurried meanwhile: then the deadline is recomputed.
      if (exit !== null || wasHurried || this.hurriedAt === null) return exit;
    }
  }

  /**
   * Immediate SIGKILL of the group (daemon shutdown deadline, protocol violations, a failed start).
   * The family outside the group (tools in sessions of their own) gets SIGTERM at the same moment:
   * it is found while the agent still connects it (once the agent is dead, such a tool may no
   * longer be traceable to it), and it keeps its grace; the sweep after the exit SIGKILLs whoever
   * is left.
   */
  kill(): void {
    if (this.exitInfo !== null) return;
    this.family.signalOutsideGroup("SIGTERM");
    this.signalGroup("SIGKILL");
  }

  /** A planned stop's step: the agent's group and every family member outside it. */
  private signalFamily(signal: "SIGTERM" | "SIGKILL"): void {
    this.family.signalOutsideGroup(signal);
    this.signalGroup(signal);
  }

  private signalGroup(signal: "SIGTERM" | "SIGKILL"): void {
    try {
      if (process.platform === "win32") this.proc.kill(signal);
      else process.kill(-this.pid, signal);
    } catch {
      try {
        this.proc.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  /** How the child ended, if it does within `ms` (or before `interrupt` settles); null while it still runs. */
  async exitedWithin(ms: number, interrupt?: Promise<void>): Promise<ExitInfo | null> {
    let timer: Timer | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(resolve, ms, null)));
    const exit = await Promise.race([this.exited, timeout, ...(interrupt ? [interrupt.then(() => null)] : [])]);
    clearTimeout(timer);
    return exit;
  }
}
