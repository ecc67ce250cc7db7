/**
 * Runs the service manager's command line tool (`systemctl --user …`, `launchctl …`) found on the
 * PATH, with a bound on its time and output. A tool that is not installed, or that the manager
 * behind it does not answer (no user bus in a container, no GUI session), is "unreachable": the
 * caller says so and prints what to run, rather than guessing a state.
 */
import { spawnSync } from "node:child_process";

export interface ManagerResult {
  /** The tool ran and exited (with `code`); false when it is not installed or timed out. */
  readonly ran: boolean;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why it did not run, or what it said when it failed, in one line. */
  readonly problem: string;
}

const TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;

/** `timeoutMs`: the bound; past it the tool gets SIGKILL (a tool that ignores SIGTERM cannot outlive it). */
export function runManager(command: readonly string[], env: Readonly<Record<string, string>>, timeoutMs = TIMEOUT_MS): ManagerResult {
  const [tool, ...args] = command;
  const result = spawnSync(tool!, args, { env, encoding: "utf8", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: MAX_OUTPUT_BYTES, stdio: ["ignore", "pipe", "pipe"] });
  const stdout = result.stdout ?? "";
  const stderr = result.stderr ?? "";
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code;
    const problem = code === "ENOENT" ? `${tool} is not installed (not on PATH)` : code === "ETIMEDOUT" ? `${command.join(" ")} did not finish within ${timeoutMs / 1000} s` : `${tool}: ${result.error.message}`;
    return { ran: false, code: null, stdout, stderr, problem };
  }
  const said = stderr.trim().split("\n")[0] || stdout.trim().split("\n")[0] || "";
  return { ran: true, code: result.status, stdout, stderr, problem: result.status === 0 ? "" : `${command.join(" ")} exited ${result.status ?? result.signal}${said ? `: ${said}` : ""}` };
}
