/**
 * The agent entry, checked before every spawn (and by `GET /workspace/preflight`, which reports
 * the same finding): the daemon's own script for the built-in agent, `SVC_CLI_ENTRY` (or settings
 * `agents.generic.path`) for `generic`, settings `agents.<name>.path` or svc's own agent directory
 * for an installable agent (`config/agent-launch.ts`). A configured entry
 * that is missing, not a regular file or unreadable is `MissingCliEntryError` (503
 * `cli_entry_missing`, not retryable: the same request fails the same way until the file is fixed,
 * and the check runs again on the next start, so fixing it needs no daemon restart). Inside the
 * compiled binary its own entry is embedded, but the binary itself is what gets spawned: a binary
 * deleted or replaced since the daemon started is checked for the same way. A spawn that still
 * fails for a missing file (ENOENT, e.g. removed between check and spawn) answers the same error.
 */
import { accessSync, constants, statSync } from "node:fs";
import type { AgentName } from "../config/agent-catalog.ts";
import type { EntrySource } from "../config/agent-launch.ts";
import type { AgentLaunch } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";

export type CliEntryProblem = "unresolved" | "not_found" | "symlink_loop" | "not_a_file" | "unreadable" | "not_executable";

/** What was found of the entry (the preflight `cli_entry` cell is built from this). */
export interface CliEntryStatus {
  readonly path: string | null;
  /** Where the path came from. */
  readonly source: EntrySourceName | null;
  readonly problem: CliEntryProblem | null;
  /** What is wrong and what to do, when something is. */
  readonly error?: string;
  readonly hint?: string;
}

/** How a source is named in answers: the variable, the argument, the settings key or svc's agent directory. */
type EntrySourceName = "SVC_CLI_ENTRY" | "process.argv[1]" | `agents.${string}.path` | "agent directory";

function sourceName(launch: AgentLaunch, source: EntrySource): EntrySourceName {
  if (source === "env") return "SVC_CLI_ENTRY";
  if (source === "argv") return "process.argv[1]";
  return source === "settings" ? `agents.${launch.agent}.path` : "agent directory";
}

const WHAT: Record<Exclude<CliEntryProblem, "unresolved">, string> = {
  not_found: "does not exist",
  symlink_loop: "is a symbolic link loop (ELOOP)",
  not_a_file: "is not a regular file",
  unreadable: "cannot be read",
  not_executable: "is not executable",
};

/** A script must be readable (the runtime reads it); a native agent's binary must be executable. */
function problemOf(path: string, native: boolean): CliEntryProblem | null {
  try {
    if (!statSync(path).isFile()) return "not_a_file";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ELOOP" ? "symlink_loop" : "not_found";
  }
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return "unreadable";
  }
  try {
    if (native) accessSync(path, constants.X_OK);
  } catch {
    return "not_executable";
  }
  return null;
}

function describe(problem: CliEntryProblem, source: CliEntryStatus["source"], compiled: boolean, agent: AgentName): { error: string; hint: string } {
  if (problem === "unresolved" || source === null)
    return { error: "Cannot determine the CLI entry path for spawning the agent child (set SVC_CLI_ENTRY)", hint: "Set SVC_CLI_ENTRY to the agent's entry script" };
  if (source === "process.argv[1]" && compiled)
    return {
      error: `The daemon's own binary ${WHAT[problem]}, so the built-in agent cannot start`,
      hint: "The daemon's binary was moved or deleted since the daemon started: restart the daemon from where it is installed, or set SVC_CLI_ENTRY to an agent's entry script",
    };
  if (source === "process.argv[1]")
    return {
      error: `The daemon's own entry script ${WHAT[problem]}, so the built-in agent cannot start`,
      hint: "The daemon's script was moved or deleted since the daemon started: restart the daemon from where it is installed, or set SVC_CLI_ENTRY to an agent's entry script",
    };
  if (source === "agent directory")
    return problem === "not_found"
      ? { error: `The ${agent} agent is not installed`, hint: `Run \`svc agents install ${agent}\`, or set agents.${agent}.path in settings.json to its entry; \`svc agents\` lists what is installed` }
      : { error: `The ${agent} agent's entry in svc's agent directory ${WHAT[problem]}`, hint: `Reinstall it with \`svc agents install ${agent}\`; GET /workspace/preflight shows the path checked` };
  if (source !== "SVC_CLI_ENTRY")
    return {
      error: `The ${agent} agent's entry named by settings ${source} ${WHAT[problem]}`,
      hint: `Point ${source} in settings.json at an existing, readable entry, or remove it${agent === "generic" ? "" : ` to run the one \`svc agents install ${agent}\` installs`}; GET /workspace/preflight shows the path checked`,
    };
  return {
    error: `The agent entry script named by SVC_CLI_ENTRY ${WHAT[problem]}`,
    hint: "Point SVC_CLI_ENTRY at an existing, readable agent entry script, or unset it to run the built-in agent; GET /workspace/preflight shows the path checked",
  };
}

export function cliEntryStatus(launch: AgentLaunch): CliEntryStatus {
  const entry = launch.cliEntry;
  if (entry === null) return { path: null, source: null, problem: "unresolved", ...describe("unresolved", null, false, launch.agent) };
  const source = sourceName(launch, entry.source);
  // Inside the compiled binary its own entry is embedded (`/$bunfs/…`), not a file on disk: the binary is what must exist.
  const problem = problemOf(embedded(launch) ? launch.execPath : entry.path, launch.runtime === "native");
  return problem === null ? { path: entry.path, source, problem } : { path: entry.path, source, problem, ...describe(problem, source, embedded(launch), launch.agent) };
}

/** The compiled binary runs its own embedded entry (`childCommand`). */
const embedded = (launch: AgentLaunch) => launch.compiled && launch.cliEntry?.source === "argv";

/** 503 `cli_entry_missing`; the body names the problem and where the path came from, never the path. */
export class MissingCliEntryError extends DaemonError {
  override readonly name = "MissingCliEntryError";
  constructor(status: CliEntryStatus, agent: AgentName, compiled = false) {
    const problem = status.problem ?? "unresolved";
    const { error, hint } = describe(problem, status.source, compiled, agent);
    super(503, "cli_entry_missing", error, {
      errorKind: "missing_binary",
      reason: problem,
      ...(status.source === null ? {} : { source: status.source }),
      hint,
      retryable: false,
    });
  }
}

/** Throws MissingCliEntryError unless the entry can be run; nothing is spawned before this passes. */
export function checkCliEntry(launch: AgentLaunch): void {
  const status = cliEntryStatus(launch);
  if (status.problem !== null) throw new MissingCliEntryError(status, launch.agent, embedded(launch));
}

/** What a failed spawn answers: a missing file (ENOENT) is `cli_entry_missing`, however it slipped past the check; anything else is passed on. */
export function spawnFailure(launch: AgentLaunch, err: unknown): unknown {
  if ((err as NodeJS.ErrnoException | null)?.code !== "ENOENT") return err;
  const status = cliEntryStatus(launch);
  return new MissingCliEntryError({ path: status.path, source: status.source, problem: "not_found" }, launch.agent, embedded(launch));
}
