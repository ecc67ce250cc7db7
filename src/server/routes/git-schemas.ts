/**
 * Request and response schemas of the read-only git views (`git.ts`), in the reference daemon's
 * shapes (`@qwen-code/qwen-code` 0.24.4, checked side by side). Query fields the reference answers
 * with `parse_error` carry that body as their validation error.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { FsError } from "../../errors/daemon-error.ts";
import { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT } from "../../workspace/git/git-limits.ts";

const invalid = (message: string) => () => new FsError(400, "parse_error", message).body();
const count = (description: string) => Type.Integer({ minimum: 0, description });

/** Longest `path`, `oldPath` or `cwd` taken (bytes are checked again by the containment helpers). */
const MAX_QUERY_PATH = 4096;
/** Longest `search` taken; only its first 200 characters are searched for, as in the reference. */
const MAX_SEARCH_QUERY = 1024;
/** Longest `range` taken. */
const MAX_RANGE = 256;
/** Largest `skip`. */
const MAX_SKIP = 1_000_000;

const Cwd = t.Optional(t.String({ maxLength: MAX_QUERY_PATH, description: "A directory inside the workspace (absolute, or relative to it) to read the repository from; default the workspace", error: invalid("cwd must be a directory inside the workspace") }));
const Flag = (description: string, name: string) => t.Optional(t.Union([t.Literal("1"), t.Literal("0")], { description, error: invalid(`${name} must be 1 or 0`) }));

function queryInteger(name: string, minimum: number, maximum: number, description: string) {
  const message = `${name} must be an integer from ${minimum} to ${maximum}`;
  return t
    .Transform(t.String({ pattern: "^[0-9]{1,16}$", description: `${description}; decimal digits, ${minimum} to ${maximum}`, error: invalid(message) }))
    .Decode((digits) => {
      const n = Number(digits);
      if (!(n >= minimum && n <= maximum)) throw new FsError(400, "parse_error", message);
      return n;
    })
    .Encode(String);
}

export const StatusQuery = t.Object({ wait: Flag("Accepted for the reference's clients; every answer is computed fresh", "wait") });
export const QualifiedStatusQuery = t.Object({ wait: Flag("Accepted for the reference's clients; every answer is computed fresh", "wait"), cwd: Cwd });
export const CwdQuery = t.Object({ cwd: Cwd });

const FilePath = (description: string, message: string) => t.String({ minLength: 1, maxLength: MAX_QUERY_PATH, description, error: invalid(message) });
export const DiffFileQuery = t.Object({
  path: FilePath("The file, relative to the repository's top level (as the diff lists it); it must lie in the workspace", "path query parameter is required"),
  oldPath: t.Optional(FilePath("The file's path before a rename", "oldPath must be a path")),
});
export const QualifiedDiffFileQuery = t.Composite([DiffFileQuery, CwdQuery]);

export const LogQuery = t.Object({
  limit: t.Optional(queryInteger("limit", 1, MAX_LOG_LIMIT, `Commits per page (default ${DEFAULT_LOG_LIMIT})`)),
  skip: t.Optional(queryInteger("skip", 0, MAX_SKIP, "Commits skipped")),
  range: t.Optional(t.String({ maxLength: MAX_RANGE, pattern: "^(?!-)(?!\\.\\.)[A-Za-z0-9_./~^-]+$", description: "A revision or range (`main`, `v1..HEAD`); never an option", error: invalid("range must be a revision or a revision range") })),
  all: Flag("1: the history of every branch, tag and remote-tracking branch", "all"),
  search: t.Optional(t.String({ maxLength: MAX_SEARCH_QUERY, description: "Commits whose message or author contains it (case-insensitive), or that it abbreviates", error: invalid(`search must be at most ${MAX_SEARCH_QUERY} characters`) })),
});
export const QualifiedLogQuery = t.Composite([LogQuery, CwdQuery]);

export const CommitQuery = t.Object({ sha: t.String({ pattern: "^[0-9a-fA-F]{7,40}$", description: "7 to 40 hex digits", error: invalid("sha query parameter is required") }) });
export const QualifiedCommitQuery = t.Composite([CommitQuery, CwdQuery]);

const WorkspaceCwd = t.String({ description: "The directory the repository was read from" });

export const GitStatusBody = t.Object(
  {
    v: t.Literal(2),
    workspaceCwd: WorkspaceCwd,
    branch: t.Union([t.String(), t.Null()], { description: "The branch checked out, the commit's short id while HEAD is detached; null outside a repository" }),
    detached: t.Optional(t.Boolean()),
    staged: t.Optional(count("Entries with staged changes")),
    unstaged: t.Optional(count("Entries with changes not staged")),
    untracked: t.Optional(count("Untracked entries")),
    conflicted: t.Optional(count("Unmerged entries")),
    hasUpstream: t.Optional(t.Boolean()),
    ahead: t.Optional(count("Commits ahead of the upstream")),
    behind: t.Optional(count("Commits behind the upstream")),
    stashCount: t.Optional(count("Stash entries")),
    operation: t.Optional(t.Union([t.Literal("rebase"), t.Literal("merge"), t.Literal("cherry-pick"), t.Literal("revert"), t.Literal("bisect")])),
    computedAt: t.Optional(Type.Integer({ description: "When the summary was computed (epoch ms)" })),
  },
  { description: "The working tree's summary; `{v, workspaceCwd, branch: null}` alone outside a repository" },
);

const Hunk = t.Object({ oldStart: count("First old line"), oldLines: count("Old lines"), newStart: count("First new line"), newLines: count("New lines"), lines: t.Array(t.String(), { description: "Lines with their `+`, `-`, ` ` or `\\` mark" }) });

export const DiffListBody = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: WorkspaceCwd,
    available: t.Boolean({ description: "false outside a repository or while a rebase, merge, cherry-pick, revert or bisect is in progress" }),
    filesCount: count("Changed files, untracked ones included"),
    linesAdded: count("Lines added"),
    linesRemoved: count("Lines removed"),
    files: t.Array(
      t.Object({
        path: t.String({ description: "Relative to the repository's top level" }),
        oldPath: t.Optional(t.String({ description: "The path before a rename" })),
        added: count("Lines added"),
        removed: count("Lines removed"),
        isBinary: t.Boolean(),
        isUntracked: t.Boolean(),
        isDeleted: t.Boolean(),
        truncated: t.Boolean({ description: "The untracked file is larger than was read to count its lines" }),
      }),
      { description: "The first 50 files (none past 500 changed files)" },
    ),
    hiddenCount: count("Changed files not listed"),
  },
  { description: "The working tree against HEAD" },
);

export const DiffFileBody = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: WorkspaceCwd,
    path: t.String({ description: "The path asked for" }),
    available: t.Boolean({ description: "false when the file has no diff (or none can be taken)" }),
    hunks: t.Array(Hunk),
    truncated: t.Optional(t.Literal(true, { description: "Lines were left out (over 400 lines or 1 MiB of diff)" })),
  },
  { description: "One file's hunks against HEAD; an untracked file is one hunk of added lines" },
);

const LogEntry = t.Object({
  sha: t.String(),
  shortSha: t.String(),
  authorName: t.String(),
  authorEmail: t.String(),
  authorDate: Type.Integer({ description: "Epoch seconds" }),
  subject: t.String(),
  refs: t.Optional(t.String({ description: "Refs pointing at it, as `git log --format=%D` prints them" })),
  parents: t.Array(t.String()),
});

export const LogBody = t.Object(
  { v: t.Literal(1), workspaceCwd: WorkspaceCwd, available: t.Boolean({ description: "false outside a repository" }), entries: t.Array(LogEntry), hasMore: t.Boolean() },
  { description: "A page of commits, newest first" },
);

export const CommitBody = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: WorkspaceCwd,
    available: t.Boolean({ description: "false outside a repository or for an unknown commit (then nothing else is answered)" }),
    sha: t.Optional(t.String()),
    shortSha: t.Optional(t.String()),
    authorName: t.Optional(t.String()),
    authorEmail: t.Optional(t.String()),
    authorDate: t.Optional(Type.Integer({ description: "Epoch seconds" })),
    subject: t.Optional(t.String()),
    body: t.Optional(t.String({ description: "The message after the subject (cut past 1 MiB)" })),
    refs: t.Optional(t.String()),
    parents: t.Optional(t.Array(t.String())),
    files: t.Optional(t.Array(t.Object({ path: t.String(), added: count("Lines added"), removed: count("Lines removed"), isBinary: t.Boolean() }), { description: "The first 50 files" })),
    filesCount: t.Optional(count("Files the commit changed")),
    linesAdded: t.Optional(count("Lines added")),
    linesRemoved: t.Optional(count("Lines removed")),
    hiddenCount: t.Optional(count("Files not listed")),
  },
  { description: "One commit and the files it changed (against its first parent)" },
);

const Branch = t.Object({
  name: t.String(),
  isHead: t.Boolean(),
  upstream: t.Optional(t.String()),
  upstreamGone: t.Optional(t.Literal(true)),
  ahead: count("Commits ahead of the upstream"),
  behind: count("Commits behind the upstream"),
  pushTarget: t.Optional(t.String()),
  pushAhead: t.Optional(count("Commits ahead of the push target")),
  pushBehind: t.Optional(count("Commits behind the push target")),
  pushGone: t.Optional(t.Literal(true)),
  commitDate: Type.Integer({ description: "Epoch seconds of its last commit" }),
  commitSubject: t.String(),
});

export const BranchesBody = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: WorkspaceCwd,
    available: t.Literal(true),
    local: t.Array(Branch),
    remote: t.Array(Branch, { description: "Remote-tracking branches" }),
    tags: t.Array(t.Object({ name: t.String(), date: Type.Integer({ description: "Epoch seconds" }), subject: t.String() }), { description: "Newest first" }),
    recent: t.Array(t.String(), { description: "Branches checked out before, newest first (at most 20)" }),
    head: t.String({ description: "The branch checked out, or HEAD's short commit id when detached" }),
    detached: t.Boolean(),
  },
  { description: "Branches and tags of the repository" },
);

export const RemotesBody = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: WorkspaceCwd,
    available: t.Literal(true),
    remotes: t.Array(
      t.Object({
        name: t.String(),
        fetchUrl: t.String({ description: "Its first URL, user info (credentials) replaced by `***`" }),
        pushUrl: t.String({ description: "Its first push URL, else its first URL; user info replaced by `***`" }),
        extraFetchUrls: count("Further URLs"),
        extraPushUrls: count("Further push URLs"),
        promisor: t.Boolean(),
        partialCloneFilter: t.Optional(t.String()),
        customRefspec: t.Boolean({ description: "A fetch refspec other than the default" }),
        otherSettings: count("Other settings of the remote"),
      }),
    ),
  },
  { description: "The remotes the repository's own config defines" },
);
