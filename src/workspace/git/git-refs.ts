/**
 * `GET /workspace/git/branches` (local and remote-tracking branches, tags, recently checked-out
 * branches, HEAD) and `GET /workspaces/:ws/git/remotes` (the repository's own remotes), the
 * reference's v1 shapes. Outside a repository: 404 `not_a_git_repository`. A remote URL's
 * credentials (`https://user:token@host`) are never answered: the user info is replaced by `***`.
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import { BRANCH_FORMAT, TAG_FORMAT, parseBranchLines, parseRecentBranches, parseRemotes, parseTagLines, type BranchEntry, type RemoteEntry } from "./git-parse.ts";
import { gitUnavailable, type GitSession } from "./git-session.ts";

/** Reflog entries read for `recent`. */
const MAX_REFLOG_ENTRIES = 200;

export interface BranchesBody {
  v: 1;
  workspaceCwd: string;
  available: true;
  local: BranchEntry[];
  remote: BranchEntry[];
  tags: { name: string; date: number; subject: string }[];
  recent: string[];
  head: string;
  detached: boolean;
}

export interface RemotesBody {
  v: 1;
  workspaceCwd: string;
  available: true;
  remotes: RemoteEntry[];
}

const notARepository = () => new DaemonError(404, "not_a_git_repository", "not a git repository (or any of the parent directories)");

async function requireRepo(git: GitSession | null): Promise<GitSession> {
  if (git === null) throw gitUnavailable("no git on PATH outside the workspace");
  if ((await git.repo()) === null) throw notARepository();
  return git;
}

export async function gitBranches(session: GitSession | null, workspaceCwd: string): Promise<BranchesBody> {
  const git = await requireRepo(session);
  const [local, remote, tags, head, reflog] = await Promise.all([
    git.git(["for-each-ref", `--format=${BRANCH_FORMAT}`, "refs/heads/"]),
    git.git(["for-each-ref", `--format=${BRANCH_FORMAT}`, "refs/remotes/"]),
    git.git(["for-each-ref", `--format=${TAG_FORMAT}`, "--sort=-creatordate", "refs/tags/"]),
    git.git(["symbolic-ref", "--quiet", "--short", "HEAD"]),
    git.git(["reflog", "show", "--format=%gs", `-${MAX_REFLOG_ENTRIES}`, "--"]),
  ]);
  const text = (r: typeof local) => (r.code === 0 || r.truncated ? r.stdout : "");
  const headName = head.code === 0 ? head.stdout.trim() : "";
  const detachedAt = headName === "" ? await git.git(["rev-parse", "--short", "--verify", "--quiet", "HEAD"]) : null;
  return {
    v: 1,
    workspaceCwd,
    available: true,
    local: parseBranchLines(text(local), local.truncated),
    remote: parseBranchLines(text(remote), remote.truncated),
    tags: parseTagLines(text(tags), tags.truncated),
    recent: parseRecentBranches(text(reflog), headName),
    head: headName || (detachedAt?.code === 0 ? detachedAt.stdout.trim() : ""),
    detached: headName === "",
  };
}

/**
 * A URL with what may carry a secret replaced by `***`: its user info (up to the authority's last
 * `@`, as URL parsers read it: a password may hold an `@`), its query and its fragment.
 */
export function withoutCredentials(url: string): string {
  const parts = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)([?#])?/is.exec(url);
  if (parts === null) return url;
  const [, scheme, authority, path, mark] = parts as unknown as [string, string, string, string, string | undefined];
  const at = authority.lastIndexOf("@");
  return `${scheme}${at === -1 ? authority : `***@${authority.slice(at + 1)}`}${path}${mark === undefined ? "" : `${mark}***`}`;
}

export async function gitRemotes(session: GitSession | null, workspaceCwd: string): Promise<RemotesBody> {
  const git = await requireRepo(session);
  const r = await git.git(["config", "--list", "--show-scope", "-z"]);
  const remotes = r.code === 0 || r.truncated ? parseRemotes(r.stdout, r.truncated) : [];
  return { v: 1, workspaceCwd, available: true, remotes: remotes.map((rm) => ({ ...rm, fetchUrl: withoutCredentials(rm.fetchUrl), pushUrl: withoutCredentials(rm.pushUrl) })) };
}
