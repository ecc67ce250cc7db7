/**
 * One request's access to git in one directory: finds the user's `git` (PATH's absolute entries,
 * never inside the workspace), learns the filter drivers the repository defines (to empty them,
 * `git-args.ts`), and runs commands with the safe global arguments. Also where the repository is:
 * its top level and git directories (`rev-parse`).
 */
import { realpath } from "node:fs/promises";
import { DaemonError } from "../../errors/daemon-error.ts";
import { exhaustedResource } from "../../errors/resource-exhaustion.ts";
import { findHostExecutable } from "../host-executable.ts";
import { isInside } from "../paths.ts";
import { FILTER_QUERY, SAFE_GLOBAL_ARGS, configEnv, filterNames, gitEnv } from "./git-args.ts";
import type { GitRun, GitRunOptions, RunGit } from "./git-run.ts";

/** Output of the config and rev-parse reads (a few paths and names). */
const SMALL_OUTPUT_BYTES = 256 * 1024;

/** Makes a runner for the `git` at `gitPath` with environment `env` (`runtime/git-process.ts`). */
export type GitRunnerFactory = (gitPath: string, env: Readonly<Record<string, string>>) => RunGit;

export interface GitHost {
  /** The canonical workspace. */
  readonly root: string;
  /** The daemon's environment without its private variables (`runtime/child-env.ts`). */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly runner: GitRunnerFactory;
}

export interface RepoPaths {
  readonly top: string;
  readonly gitDir: string;
  readonly commonDir: string;
}

export const gitUnavailable = (why: string) => new DaemonError(503, "git_unavailable", `git cannot be run: ${why}`);
/** A run past its time bound (`runtime/git-process.ts` killed it). */
export const timedOut = () => new DaemonError(503, "git_timeout", "git did not answer in time", {}, 5);

export class GitSession {
  private filters: Promise<string[]> | null = null;

  private constructor(
    private readonly run: RunGit,
    private readonly root: string,
    readonly cwd: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * A session in `cwd`, or null when no usable `git` is on PATH (none, or only inside the workspace).
   * Its runs stop, or never start, once `signal` aborts.
   */
  static open(host: GitHost, cwd: string, signal?: AbortSignal): GitSession | null {
    const found = findHostExecutable("git", host.baseEnv.PATH ?? "", host.root);
    if (found.kind !== "found") return null;
    return new GitSession(host.runner(found.path, gitEnv(host.baseEnv, host.root)), host.root, cwd, signal);
  }

  /** `git <args>` with the safe global arguments, in the session's directory (or `cwd`); a run past its time bound is 503 `git_timeout`. */
  async git(args: readonly string[], options: { maxBytes?: number; cwd?: string } = {}): Promise<GitRun> {
    this.filters ??= this.start([...SAFE_GLOBAL_ARGS, ...FILTER_QUERY], { cwd: this.cwd, maxBytes: SMALL_OUTPUT_BYTES, env: configEnv([]), ...this.aborts() }).then((r) => {
      // Cut output could hide a filter: refuse to run rather than run one.
      if (r.timedOut) throw timedOut();
      if (r.truncated) throw gitUnavailable("the repository's filter configuration could not be read whole");
      const names = filterNames(r.stdout);
      if (names === null) throw gitUnavailable("this git ignores GIT_CONFIG_COUNT (git 2.31 or later is needed)");
      return names;
    });
    const filters = await this.filters;
    const run = await this.start([...SAFE_GLOBAL_ARGS, ...args], { cwd: options.cwd ?? this.cwd, env: configEnv(filters), ...this.aborts(), ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }) });
    if (run.timedOut) throw timedOut();
    return run;
  }

  /**
   * One run. A `git` that cannot be started (the spawn itself failed) is 503 `git_unavailable` naming
   * the system error's code only; running out of descriptors or processes stays the system error, the
   * retryable 503 `resource_exhausted`.
   */
  private async start(args: readonly string[], options: GitRunOptions): Promise<GitRun> {
    try {
      return await this.run(args, options);
    } catch (err) {
      if (err instanceof DaemonError || exhaustedResource(err) !== null) throw err;
      const code = (err as { code?: unknown })?.code;
      throw gitUnavailable(`the process could not be started${typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? ` (${code})` : ""}`);
    }
  }

  private aborts(): { signal?: AbortSignal } {
    return this.signal === undefined ? {} : { signal: this.signal };
  }

  /**
   * The repository around the session's directory, or null when it is in none, when its work tree
   * is neither the workspace, inside it, nor a folder holding it (a `core.worktree` pointing
   * elsewhere would have the views read files outside the workspace), or when it is another
   * repository than the workspace's own whose git directories lie outside the workspace (a `.git`
   * file or link in a workspace folder may name any repository on disk).
   */
  async repo(): Promise<RepoPaths | null> {
    const here = await this.paths(this.cwd);
    if (here === null) return null;
    if (!isInside(this.root, here.top) && !isInside(here.top, this.root)) return null;
    if (this.cwd === this.root || (await this.ownDirs(here))) return here;
    return null;
  }

  /** Whether `repo`'s git and common directories lie inside the workspace, or are those of the repository the workspace itself is in. */
  private async ownDirs(repo: RepoPaths): Promise<boolean> {
    const dirs = await realDirs(repo);
    if (dirs === null) return false;
    if (dirs.every((dir) => isInside(this.root, dir))) return true;
    const workspace = await this.paths(this.root);
    const own = workspace === null ? null : await realDirs(workspace);
    return own !== null && own[0] === dirs[0] && own[1] === dirs[1];
  }

  private async paths(cwd: string): Promise<RepoPaths | null> {
    const r = await this.git(["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"], { cwd, maxBytes: SMALL_OUTPUT_BYTES });
    if (r.code !== 0) return null;
    const [top, gitDir, common] = r.stdout.split("\n");
    if (!top || !gitDir || !common) return null;
    return { top, gitDir, commonDir: common.startsWith("/") ? common : `${cwd}/${common}` };
  }
}

/** The real paths of a repository's git and common directories, or null when either cannot be resolved. */
async function realDirs(repo: RepoPaths): Promise<[string, string] | null> {
  try {
    return [await realpath(repo.gitDir), await realpath(repo.commonDir)];
  } catch {
    return null;
  }
}
