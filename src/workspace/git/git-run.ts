/**
 * What the git views need from whoever runs `git` (`runtime/git-process.ts` does): one bounded run
 * of the user's `git` with the arguments given, in a directory, and what it printed. The views stay
 * pure of process handling, so `workspace/` never spawns.
 */

/** One finished (or stopped) run. `stdout` holds at most the run's byte bound, cut at that bound. */
export interface GitRun {
  /** Exit code; null when the run was stopped (timeout, output over its bound) or killed by a signal. */
  readonly code: number | null;
  readonly stdout: string;
  /** The first bytes of stderr (GIT_STDERR_BYTES), for error messages. */
  readonly stderr: string;
  /** stdout passed its bound: the process group was killed and `stdout` is the bytes read before. */
  readonly truncated: boolean;
  /** The run passed its time bound and its process group was killed. */
  readonly timedOut: boolean;
}

export interface GitRunOptions {
  /** Working directory (an absolute, canonical path inside the workspace). */
  readonly cwd: string;
  /** stdout bound in bytes (default GIT_OUTPUT_BYTES). */
  readonly maxBytes?: number;
  /** Variables set over the runner's environment for this run. */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborted when the answer is no longer wanted (its client went away): the run is stopped, or never started. */
  readonly signal?: AbortSignal;
}

/** Runs `git <args>` (the views add every safety argument themselves, `git-args.ts`). */
export type RunGit = (args: readonly string[], options: GitRunOptions) => Promise<GitRun>;

/** Default stdout bound of one run: past it the run is stopped and its output marked truncated. */
export const GIT_OUTPUT_BYTES = 4 * 1024 * 1024;
/** stderr kept of one run (the rest is read and dropped). */
export const GIT_STDERR_BYTES = 8 * 1024;
/** Time bound of one run; past it the process group is SIGKILLed. */
export const GIT_TIMEOUT_MS = 10_000;
