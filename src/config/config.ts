/**
 * The daemon's frozen configuration, derived once at boot from flags, environment and settings.
 * This folder is the only code that reads argv, process.env or the settings files.
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { AgentName } from "./agent-catalog.ts";
import { selectAgent, type AgentSelection } from "./agent-launch.ts";
import { BootError } from "./boot-error.ts";
import type { ApprovalMode } from "./approval-modes.ts";
import { envSwitch, readFlags } from "./flags.ts";
import { isLoopbackHost } from "./net.ts";
import { onlyLoopbackOrigins, parseOriginPatterns, type OriginPolicy } from "./origin-patterns.ts";
import { loadDaemonSettings, type DaemonSettings } from "./settings.ts";
import { parseToken } from "./token.ts";
import { readTokenFile } from "./token-file.ts";
import { HANDOVER_NONCE_ENV, handoverNonce, serviceManager, type ServiceManager } from "./update-handover.ts";
import { registryFromEnv } from "./npm-registry.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "text" | "json";
export type McpBudgetMode = "enforce" | "warn" | "off";
export type ChildHeapMode = "observe" | "admit" | "enforce";

export interface Limits {
  readonly maxSessions: number;
  readonly maxTotalSessions: number;
  /** Workspaces served at once, the primary included (`--max-workspaces`). */
  readonly maxWorkspaces: number;
  readonly maxPendingPromptsPerSession: number;
  readonly listenerMaxConnections: number;
  readonly eventRingSize: number;
  readonly promptDeadlineMs: number | null;
  readonly writerIdleTimeoutMs: number | null;
  readonly channelIdleTimeoutMs: number;
  readonly sessionIdleTimeoutMs: number;
  readonly sessionReapIntervalMs: number;
  readonly permissionResponseTimeoutMs: number;
  readonly initTimeoutMs: number;
  readonly sessionRestoreTimeoutMs: number;
  readonly acpConnectionCap: number;
  readonly memoryBudgetMb: number | null;
  readonly maxJournalBytes: number;
  readonly maxJournalEvents: number;
  /** True when either journal cap was pinned by a flag, which disables adaptive growth. */
  readonly journalPinned: boolean;
  /** Bytes of the daemon-wide pool a load's replay may borrow past the baseline; 0 = no growth. See below. */
  readonly journalGrowthPoolBytes: number;
  /** Bytes of file snapshots kept for rewind (`--max-snapshot-bytes`, else `checkpoints.maxBytes`); oldest turns are evicted past it. */
  readonly maxSnapshotBytes: number;
}

/**
 * How agent children are started, in the workspace: `[process.execPath, entry?, ...args]` for a
 * script agent, `[entry, ...args]` for a native one. Which agent and entry: `agent-launch.ts`.
 */
export interface AgentLaunch extends AgentSelection {
  /** The runtime binary (never looked up on PATH). */
  readonly execPath: string;
  /** True inside a compiled binary, whose own entry is embedded (`/$bunfs/…`). */
  readonly compiled: boolean;
  /** The daemon's environment at boot, the base of every child's environment. */
  readonly baseEnv: Readonly<Record<string, string>>;
}

export interface RateLimitConfig {
  readonly enabled: boolean;
  readonly windowMs: number;
  readonly prompt: number;
  readonly mutation: number;
  readonly read: number;
}

/** The launcher handshake (`--ready-json`, `--parent-pid`); flags only, never inherited through the environment. */
export interface LauncherConfig {
  readonly readyJson: boolean;
  /** Shut down when this process ends; existence is checked at boot by the serve command. */
  readonly parentPid: number | null;
  /** `--open`: open the web UI in the user's browser once listening (ignored with `--no-web`, with a warning). */
  readonly open: boolean;
  /** The nonce a restarting daemon started this one with (update-handover.ts); never passed on to children. */
  readonly handoverNonce: string | null;
  /** The service manager that runs this daemon (it restarts the daemon into an update), or null. */
  readonly serviceManager: ServiceManager | null;
}

export interface Config {
  readonly version: string;
  readonly hostname: string;
  readonly port: number;
  readonly loopbackBind: boolean;
  readonly token: string | null;
  /** `--token-file`, absolute: where a launcher that finds this daemon reads its token (null: not given). */
  readonly tokenFile: string | null;
  readonly requireAuth: boolean;
  readonly origins: OriginPolicy;
  /** Canonical absolute path of the primary workspace. */
  readonly workspace: string;
  /**
   * `--trust-workspace`: the workspace is trusted for this daemon's life. Whether it is trusted is
   * decided live (`src/trust/`), never from a boot-time answer.
   */
  readonly trustWorkspace: boolean;
  /** `--approval-mode`: the built-in agent's approval mode, over the host settings' (null: not given). */
  readonly approvalMode: ApprovalMode | null;
  readonly web: boolean;
  readonly dataDir: string;
  readonly limits: Limits;
  readonly rateLimit: RateLimitConfig;
  readonly mcp: { readonly clientBudget: number | null; readonly budgetMode: McpBudgetMode; readonly pool: boolean };
  readonly childHeapMode: ChildHeapMode;
  readonly settings: DaemonSettings;
  readonly agent: AgentLaunch;
  readonly log: { readonly level: LogLevel; readonly format: LogFormat };
  readonly launcher: LauncherConfig;
  /** `--release-url`/SVC_RELEASE_URL: where updates are looked for (null: the project's release location, `src/update/`). */
  readonly releaseUrl: string | null;
  /** `SVC_NPM_REGISTRY`: where registry extensions are fetched from (npm's registry by default). */
  readonly npmRegistry: string;
  /** Non-fatal notes from boot (e.g. `--allow-origin '*'`), printed as warnings. */
  readonly warnings: readonly string[];
}

/**
 * Journal growth (spec Limits): the replay `POST /session/:id/load` returns holds the session's
 * newest journaled events, at most BASELINE_JOURNAL_EVENTS and BASELINE_JOURNAL_BYTES of envelope.
 * A longer session's load may grow past that baseline by borrowing bytes from one daemon-wide pool
 * of `--memory-budget-mb` MB (DEFAULT_JOURNAL_GROWTH_POOL_MB when unset), shared by concurrent
 * loads: each takes what is free (up to a per-load ceiling, sessions/journal-growth.ts), keeps what
 * its replay uses past the baseline bytes until its reply is sent, and hands back the rest at once.
 * A load that finds the pool empty gets the baseline. Pinning `--max-journal-bytes` or
 * `--max-journal-events` replaces the baseline and disables growth (the pool is 0).
 * SSE replay is not affected (it has its own ring, `--event-ring-size`).
 */
const BASELINE_JOURNAL_BYTES = 8 * 1024 * 1024;
const BASELINE_JOURNAL_EVENTS = 10_000;
const DEFAULT_JOURNAL_GROWTH_POOL_MB = 64;
const ACP_CONNECTION_CAP = 64;
/** Default bound of the rewind snapshots (`--max-snapshot-bytes`). */
const DEFAULT_SNAPSHOT_BYTES = 256 * 1024 * 1024;

export interface ConfigInputs {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly version: string;
  /** The daemon's own first script argument (process.argv[1]), the default agent entry. */
  readonly selfEntry: string | undefined;
  /** The runtime binary (process.execPath). */
  readonly execPath?: string;
  readonly platform?: NodeJS.Platform;
  readonly arch?: string;
}

/** The canonical real path of `--workspace` (default: `cwd`); a BootError when it is missing or not a directory. */
export function canonicalWorkspace(given: string | null, cwd: string): string {
  const path = resolve(cwd, given ?? ".");
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new BootError(`--workspace: ${path} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new BootError(`--workspace: ${path} is not a directory`);
  return real;
}

export function dataDirFor(env: ConfigInputs["env"], platform: NodeJS.Platform): string {
  if (env.SVC_HOME) return resolve(env.SVC_HOME);
  const home = env.HOME || homedir();
  if (platform === "darwin") return join(home, "Library", "Application Support", "svc");
  if (platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "svc");
  // The XDG spec: a relative XDG_DATA_HOME is invalid and ignored (it would name a folder in whatever the cwd is).
  const xdgData = env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : join(home, ".local", "share");
  return join(xdgData, "svc");
}

/**
 * The bearer token: `--token-file`'s content, else `--token`, else `SVC_SERVER_TOKEN` (`given` is
 * the flag or the variable, as readFlags merged them). A file given with `--token` too is a boot
 * error (which one was meant?); over the variable the file wins, as every flag wins over its
 * variable, with a warning.
 */
function resolveToken(given: string | null, file: string | null, inputs: ConfigInputs, warnings: string[]): string | null {
  // An unset variable in a unit or script (`SVC_SERVER_TOKEN=${TOKEN}`) reads as no token: said, not silent.
  if (given === null && file === null && inputs.env.SVC_SERVER_TOKEN === "") warnings.push("SVC_SERVER_TOKEN is set but empty: the daemon runs without a token");
  if (file === null) return parseToken(given);
  if (file === "") throw new BootError("--token-file: must not be empty");
  if (given !== null) {
    if (given !== inputs.env.SVC_SERVER_TOKEN) throw new BootError("--token and --token-file both give the token: pass one of them");
    warnings.push("SVC_SERVER_TOKEN is ignored: --token-file gives the token");
  }
  return readTokenFile(resolve(inputs.cwd, file));
}

export function resolveConfig(inputs: ConfigInputs): Config {
  const { env } = inputs;
  const f = readFlags(inputs.args, env);
  const warnings: string[] = [];

  const token = resolveToken(f.token, f["token-file"], inputs, warnings);
  const hostname = (f.hostname ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
  if (hostname.trim() === "") throw new BootError("--hostname: must not be empty");
  const loopbackBind = isLoopbackHost(hostname);

  if (f["require-auth"] && token === null) throw new BootError("--require-auth needs a token: set SVC_SERVER_TOKEN or pass --token");
  if (!loopbackBind && token === null)
    throw new BootError(`--hostname ${hostname} is not a loopback address; a non-loopback bind needs a token (set SVC_SERVER_TOKEN)`);

  const origins = parseOriginPatterns(f["allow-origin"]);
  if (origins.any) {
    if (token === null) throw new BootError("--allow-origin '*' needs a token: set SVC_SERVER_TOKEN or pass --token");
    warnings.push("--allow-origin '*' admits every browser origin; any page the user visits can call this daemon with the token it holds");
  } else if (token === null && !onlyLoopbackOrigins(origins)) {
    throw new BootError("--allow-origin for a non-loopback origin needs a token: set SVC_SERVER_TOKEN or pass --token");
  }

  const promptDeadline = f["prompt-deadline-ms"];
  const writerIdle = f["writer-idle-timeout-ms"];
  const budget = f["mcp-client-budget"];
  const journalPinned = f["max-journal-bytes"] !== null || f["max-journal-events"] !== null;
  const budgetMode = (f["mcp-budget-mode"] || (budget === null ? "off" : "enforce")) as McpBudgetMode;
  const dataDir = dataDirFor(env, inputs.platform ?? process.platform);

  const workspace = canonicalWorkspace(f.workspace, inputs.cwd);
  const settings = loadDaemonSettings(join(dataDir, "settings.json"), env);
  const selection = selectAgent(
    { flag: f.agent === "" ? null : (f.agent as AgentName), env, settings, dataDir, cwd: inputs.cwd, selfEntry: inputs.selfEntry, platform: inputs.platform ?? process.platform, arch: inputs.arch ?? process.arch },
    warnings,
  );
  if (f.open && f["no-web"]) warnings.push("--open is ignored with --no-web: there is no web UI to open");
  if (f["approval-mode"] !== "" && selection.agent !== "builtin") warnings.push(`--approval-mode applies to the built-in agent only; --agent ${selection.agent} keeps its own`);
  const config: Config = {
    version: inputs.version,
    hostname,
    port: f.port,
    loopbackBind,
    token,
    tokenFile: f["token-file"] === null ? null : resolve(inputs.cwd, f["token-file"]),
    requireAuth: f["require-auth"],
    origins,
    workspace,
    trustWorkspace: f["trust-workspace"],
    approvalMode: f["approval-mode"] === "" ? null : (f["approval-mode"] as ApprovalMode),
    web: !f["no-web"],
    dataDir,
    limits: {
      maxSessions: f["max-sessions"],
      maxTotalSessions: f["max-total-sessions"],
      maxWorkspaces: f["max-workspaces"],
      maxPendingPromptsPerSession: f["max-pending-prompts-per-session"],
      listenerMaxConnections: f["max-connections"],
      eventRingSize: f["event-ring-size"],
      promptDeadlineMs: promptDeadline ? promptDeadline : null,
      writerIdleTimeoutMs: writerIdle ? writerIdle : null,
      channelIdleTimeoutMs: f["channel-idle-timeout-ms"],
      sessionIdleTimeoutMs: f["session-idle-timeout-ms"],
      sessionReapIntervalMs: f["session-reap-interval-ms"],
      permissionResponseTimeoutMs: f["permission-response-timeout-ms"],
      initTimeoutMs: f["initialize-timeout-ms"],
      sessionRestoreTimeoutMs: f["session-restore-timeout-ms"],
      acpConnectionCap: ACP_CONNECTION_CAP,
      memoryBudgetMb: f["memory-budget-mb"],
      maxJournalBytes: f["max-journal-bytes"] ?? BASELINE_JOURNAL_BYTES,
      maxJournalEvents: f["max-journal-events"] ?? BASELINE_JOURNAL_EVENTS,
      journalPinned,
      journalGrowthPoolBytes: journalPinned ? 0 : (f["memory-budget-mb"] ?? DEFAULT_JOURNAL_GROWTH_POOL_MB) * 1024 * 1024,
      maxSnapshotBytes: f["max-snapshot-bytes"] ?? settings.maxSnapshotBytes ?? DEFAULT_SNAPSHOT_BYTES,
    },
    rateLimit: {
      enabled: f["rate-limit"],
      windowMs: f["rate-limit-window-ms"],
      prompt: f["rate-limit-prompt"],
      mutation: f["rate-limit-mutation"],
      read: f["rate-limit-read"],
    },
    mcp: { clientBudget: budget, budgetMode, pool: !envSwitch(env, "SVC_SERVE_NO_MCP_POOL") },
    childHeapMode: f["child-heap-mode"] as ChildHeapMode,
    settings,
    agent: {
      ...selection,
      execPath: inputs.execPath ?? process.execPath,
      compiled: (inputs.selfEntry ?? "").startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/.test(inputs.selfEntry ?? ""),
      baseEnv: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== HANDOVER_NONCE_ENV)),
    },
    log: { level: f["log-level"] as LogLevel, format: f["log-format"] as LogFormat },
    launcher: { readyJson: f["ready-json"], parentPid: f["parent-pid"], open: f.open && !f["no-web"], handoverNonce: handoverNonce(env), serviceManager: serviceManager(env) },
    releaseUrl: f["release-url"],
    npmRegistry: registryFromEnv(env),
    warnings,
  };
  return deepFreeze(config);
}

/**
 * Freezes `value` and the objects it holds. Strings (the environment's values, hundreds of them)
 * are not called on: a call per value made this hot enough at boot for JSC's optimizing compiler,
 * whose code then stays resident in the idle daemon.
 */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    if (!(value instanceof Set)) for (const v of Object.values(value)) if (v !== null && typeof v === "object") deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
