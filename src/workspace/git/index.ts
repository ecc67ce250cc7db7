/**
 * The read-only git views (the `workspace/git/` seam, loaded on first use by `server/routes/git.ts`):
 * status, diff, log, branches and remotes of the repository around a workspace directory, from the
 * user's `git` run without any program the repository chose (`git-args.ts`), bounded in bytes and
 * time. The process itself is `runtime/git-process.ts`'s.
 */
import { gitBranches, gitRemotes } from "./git-refs.ts";
import { gitDiffFile, gitDiffList } from "./git-diff.ts";
import { gitCommit, gitLog, type LogQuery } from "./git-log.ts";
import { GitSession, type GitHost } from "./git-session.ts";
import { gitStatus } from "./git-status.ts";
import { RunSlots } from "./run-slots.ts";

export type { GitHost, GitRunnerFactory } from "./git-session.ts";
export type { LogQuery } from "./git-log.ts";
export { RunSlots } from "./run-slots.ts";

/** The views of one workspace; `cwd` is a canonical directory inside it. Their git runs share one set of slots. */
export class GitViews {
  private readonly host: GitHost;

  constructor(host: GitHost, slots = new RunSlots()) {
    this.host = { ...host, runner: (path, env) => slots.limit(host.runner(path, env)) };
  }

  private session(cwd: string, signal: AbortSignal | undefined): GitSession | null {
    return GitSession.open(this.host, cwd, signal);
  }

  // Each view's `signal` aborts when its answer is no longer wanted: its git runs stop.
  status = (cwd: string, signal?: AbortSignal) => gitStatus(this.session(cwd, signal), this.host.root, cwd);
  diff = (cwd: string, signal?: AbortSignal) => gitDiffList(this.session(cwd, signal), this.host.root, cwd);
  diffFile = (cwd: string, path: string, oldPath?: string, signal?: AbortSignal) => gitDiffFile(this.session(cwd, signal), this.host.root, cwd, path, oldPath);
  log = (cwd: string, query: LogQuery, signal?: AbortSignal) => gitLog(this.session(cwd, signal), cwd, query);
  commit = (cwd: string, sha: string, signal?: AbortSignal) => gitCommit(this.session(cwd, signal), cwd, sha);
  branches = (cwd: string, signal?: AbortSignal) => gitBranches(this.session(cwd, signal), cwd);
  remotes = (cwd: string, signal?: AbortSignal) => gitRemotes(this.session(cwd, signal), cwd);
}
