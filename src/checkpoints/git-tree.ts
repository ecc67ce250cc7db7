/**
 * What a turn's shell commands changed, where git can tell: the tracked files of the repository
 * around the workspace, compared before and after the turn. Before the turn: HEAD and the tracked
 * files that differ from it (`status --porcelain=v2`, untracked files left out); after: the same,
 * plus what HEAD moved over if the turn committed. A tracked file that differed from HEAD before the
 * turn is snapshotted then (its content is not in git); one that did not has HEAD's content, read
 * from git after the turn and checked against its object id (so a file git would not give back
 * byte for byte, binary among them, is reported as not restorable rather than restored wrong).
 *
 * Not covered: files git does not track (new, ignored, or the workspace is not in a repository,
 * or git is missing); a tracked file a shell command changed and an edit tool then changed again in
 * the same turn is restored to its content before the edit tool's write.
 *
 * git runs through `workspace/git/`'s safe session (no program the repository names runs), a fresh
 * one per phase so a filter the turn itself configured is known and disabled.
 */
import { relative } from "node:path";
import { GitSession, type GitHost } from "../workspace/git/git-session.ts";
import { SAFE_DIFF_OPTIONS, subtreePathspec } from "../workspace/git/git-args.ts";
import { nulRecords } from "../workspace/git/git-parse.ts";
import { isInside } from "../workspace/paths.ts";

/** Output bound of the status and diff listings; a cut listing covers what it lists. */
const LISTING_BYTES = 4 * 1024 * 1024;

export interface TreeState {
  /** HEAD's commit id, or null before the first commit. */
  readonly head: string | null;
  /** Workspace-relative paths of tracked files that differ from HEAD (or the index). */
  readonly dirty: ReadonlySet<string>;
}

export class GitTree {
  /** The repository's top folder, looked up once per session (null: not in a repository, or no usable git). */
  private top: Promise<string | null> | null = null;

  constructor(private readonly host: GitHost) {}

  private open(): GitSession | null {
    return GitSession.open(this.host, this.host.root);
  }

  private async repoTop(): Promise<string | null> {
    this.top ??= (async () => {
      const git = this.open();
      if (git === null) return null;
      try {
        return (await git.repo())?.top ?? null;
      } catch {
        return null;
      }
    })();
    return await this.top;
  }

  /** The tracked tree's state now, or null where git cannot tell. */
  async state(): Promise<TreeState | null> {
    const top = await this.repoTop();
    const git = top === null ? null : this.open();
    if (top === null || git === null) return null;
    try {
      const head = await git.git(["rev-parse", "--verify", "--quiet", "HEAD"], { cwd: top });
      const status = await git.git(["status", "--porcelain=v2", "-z", "--untracked-files=no", SAFE_DIFF_OPTIONS[3], "--", ...subtreePathspec(top, this.host.root)], { cwd: top, maxBytes: LISTING_BYTES });
      if (status.code !== 0 && !status.truncated) return null;
      return { head: head.code === 0 ? head.stdout.trim() || null : null, dirty: new Set(this.inWorkspace(top, statusPaths(nulRecords(status.stdout, status.truncated)))) };
    } catch {
      return null;
    }
  }

  /** Files a move of HEAD from `from` to `to` changed, workspace-relative. */
  async committed(from: string | null, to: string | null): Promise<string[]> {
    const top = await this.repoTop();
    const git = top === null ? null : this.open();
    if (top === null || git === null || from === null || to === null || from === to) return [];
    try {
      const r = await git.git(["diff", "--name-only", "-z", ...SAFE_DIFF_OPTIONS, from, to, "--", ...subtreePathspec(top, this.host.root)], { cwd: top, maxBytes: LISTING_BYTES });
      return r.code === 0 || r.truncated ? this.inWorkspace(top, nulRecords(r.stdout, r.truncated)) : [];
    } catch {
      return [];
    }
  }

  /**
   * The bytes and mode (0o755 or 0o644) of workspace file `rel` in commit `head`: null when it is not in it, "unrestorable"
   * when it is over `cap` bytes or git's text of it is not its exact bytes.
   */
  async contentAt(head: string, rel: string, cap: number): Promise<{ bytes: Buffer; mode: number } | null | "unrestorable"> {
    const top = await this.repoTop();
    const git = top === null ? null : this.open();
    if (top === null || git === null) return "unrestorable";
    try {
      const path = relative(top, `${this.host.root}/${rel}`);
      const entry = await git.git(["ls-tree", "-z", head, "--", path], { cwd: top });
      if (entry.code !== 0) return "unrestorable";
      const record = nulRecords(entry.stdout, entry.truncated)[0];
      if (record === undefined) return null;
      const [info] = record.split("\t");
      const [gitMode, type, id] = (info ?? "").split(" ");
      if (type !== "blob" || id === undefined) return "unrestorable";
      const blob = await git.git(["cat-file", "blob", id], { cwd: top, maxBytes: cap + 1 });
      if (blob.code !== 0 || blob.truncated) return "unrestorable";
      const bytes = Buffer.from(blob.stdout, "utf8");
      // git keeps one bit of a file's mode: executable (100755) or not (100644).
      return objectId(bytes, id.length) === id ? { bytes, mode: gitMode === "100755" ? 0o755 : 0o644 } : "unrestorable";
    } catch {
      return "unrestorable";
    }
  }

  private inWorkspace(top: string, paths: readonly string[]): string[] {
    const out: string[] = [];
    for (const path of paths) {
      const abs = `${top}/${path}`;
      if (isInside(this.host.root, abs) && abs !== this.host.root) out.push(relative(this.host.root, abs));
    }
    return out;
  }
}

/** git's object id of blob `bytes` (sha1, or sha256 in a repository of that format). */
function objectId(bytes: Buffer, hexLength: number): string {
  const hasher = new Bun.CryptoHasher(hexLength === 64 ? "sha256" : "sha1");
  hasher.update(`blob ${bytes.byteLength}\0`);
  hasher.update(bytes);
  return hasher.digest("hex");
}

/** Paths of `status --porcelain=v2 -z` records (both names of a rename), repository-relative. */
export function statusPaths(records: readonly string[]): string[] {
  const paths: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    // Field counts before the path: `1` has 8, `2` has 9 (then the original path as its own record), `u` has 10.
    const fields = record.startsWith("1 ") ? 8 : record.startsWith("2 ") ? 9 : record.startsWith("u ") ? 10 : 0;
    if (fields === 0) continue;
    let at = 0;
    for (let f = 0; f < fields && at >= 0; f++) at = record.indexOf(" ", at) + 1 || -1;
    if (at > 0) paths.push(record.slice(at));
    if (record.startsWith("2 ") && i + 1 < records.length) paths.push(records[++i]!);
  }
  return paths;
}
