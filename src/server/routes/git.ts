/**
 * The read-only git views, bare (the bound workspace) and workspace-qualified (`:workspace` is the
 * workspace's id or path; a `cwd` query names a directory inside it):
 *
 *   GET /workspace/git                 /workspaces/:workspace/git               → the working tree's summary (`?wait=1` accepted)
 *   GET /workspace/git/branches        /workspaces/:workspace/git/branches      → branches, tags, HEAD
 *   GET /workspace/git/diff            /workspaces/:workspace/git/diff          → the working tree against HEAD
 *   GET /workspace/git/diff/file       /workspaces/:workspace/git/diff/file     → one file's hunks (`path`, `oldPath`)
 *   GET /workspace/git/log             /workspaces/:workspace/git/log           → a page of commits
 *   GET /workspace/git/log/commit      /workspaces/:workspace/git/log/commit    → one commit (`sha`)
 *                                      /workspaces/:workspace/git/remotes       → the repository's remotes
 *
 * All under the capability tag `workspace_git` (the reference advertises none for them). Only in a
 * trusted workspace (403 `untrusted_workspace`, the reference's answer): git reads the repository's
 * config. The views (`workspace/git/`) and the process runner (`runtime/git-process.ts`) load on the
 * first request. A request's git runs stop when its client goes away (`request.signal`). Every answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.
 */
import { stat } from "node:fs/promises";
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { childEnv } from "../../runtime/child-env.ts";
import { resolveExisting } from "../../workspace/contained-fs.ts";
import { parseError } from "../../workspace/fs-errors.ts";
import type { GitViews } from "../../workspace/git/index.ts";
import { DEFAULT_LOG_LIMIT } from "../../workspace/git/git-limits.ts";
import { normalizeRequestPath } from "../../workspace/paths.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { apiModelNames } from "../schemas/api-models.ts";
import { fsErrorResponses } from "../schemas/error-statuses.ts";
import {
  BranchesBody,
  CommitBody,
  CommitQuery,
  CwdQuery,
  DiffFileBody,
  DiffFileQuery,
  DiffListBody,
  GitStatusBody,
  LogBody,
  LogQuery,
  QualifiedCommitQuery,
  QualifiedDiffFileQuery,
  QualifiedLogQuery,
  QualifiedStatusQuery,
  RemotesBody,
  StatusQuery,
} from "./git-schemas.ts";
import { WorkspaceSelector } from "./history-schemas.ts";

const TAG = "workspace_git";
/**
 * 400 a query's `parse_error` or a path outside the workspace (file-route bodies), 403 untrusted, 404
 * either body (`cwd` not found; no such workspace, not a repository), 503 no usable git or no answer in time.
 */
const errors = fsErrorResponses([400, 404], { also: [404] });
const Params = t.Object({ workspace: WorkspaceSelector });

const untrusted = () => new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");

export const gitRoutes = (deps: AppDeps) => {
  const root = deps.config.workspace;
  let views: Promise<GitViews> | null = null;
  const load = () =>
    (views ??= Promise.all([import("../../workspace/git/index.ts"), import("../../runtime/git-process.ts")]).then(
      ([git, proc]) => new git.GitViews({ root, baseEnv: childEnv(deps.config.agent.baseEnv), runner: (path, env) => proc.gitProcessRunner(path, env) }),
    ));

  /** The views, once the workspace is known to be trusted. */
  async function trusted(): Promise<GitViews> {
    if (!deps.trust.trusted) throw untrusted();
    return await load();
  }

  /** The directory a `cwd` query names: the workspace when absent, else a directory inside it (links followed only within). */
  async function cwdOf(raw: string | undefined): Promise<string> {
    if (raw === undefined || raw === "") return root;
    const real = await resolveExisting(root, normalizeRequestPath(root, raw));
    if (!(await stat(real)).isDirectory()) throw parseError("cwd must be a directory inside the workspace");
    return real;
  }

  /** The qualified route's views and directory, checked in the reference's order: workspace, trust, cwd. */
  async function qualified(selector: string, cwd: string | undefined): Promise<[GitViews, string]> {
    deps.runtimes.resolve(selector);
    const views = await trusted();
    return [views, await cwdOf(cwd)];
  }

  const detail = (summary: string) => capability(TAG, { summary });
  const logQuery = (q: { limit?: number; skip?: number; range?: string; all?: string; search?: string }) => ({
    limit: q.limit ?? DEFAULT_LOG_LIMIT,
    skip: q.skip ?? 0,
    all: q.all === "1",
    ...(q.range === undefined ? {} : { range: q.range }),
    ...(q.search === undefined ? {} : { search: q.search }),
  });

  return (
    new Elysia({ name: "routes/git" })
      .use(apiModelNames)
      .mapResponse(({ set }) => {
        set.headers["cache-control"] = "no-store";
        set.headers["x-content-type-options"] = "nosniff";
      })
      .get("/workspace/git", async ({ request }) => (await trusted()).status(root, request.signal), {
        query: StatusQuery,
        response: { 200: GitStatusBody, ...errors },
        detail: detail("The working tree's summary: branch, upstream distance, changed entries, stashes"),
      })
      .get("/workspaces/:workspace/git", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.status(cwd, request.signal);
      }, { params: Params, query: QualifiedStatusQuery, response: { 200: GitStatusBody, ...errors }, detail: detail("The named workspace's working-tree summary") })
      .get("/workspace/git/branches", async ({ request }) => (await trusted()).branches(root, request.signal), {
        response: { 200: BranchesBody, ...errors },
        detail: detail("Branches, remote-tracking branches, tags and HEAD"),
      })
      .get("/workspaces/:workspace/git/branches", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.branches(cwd, request.signal);
      }, { params: Params, query: CwdQuery, response: { 200: BranchesBody, ...errors }, detail: detail("The named workspace's branches and tags") })
      .get("/workspace/git/diff", async ({ request }) => (await trusted()).diff(root, request.signal), {
        response: { 200: DiffListBody, ...errors },
        detail: detail("The working tree against HEAD: totals and the first files"),
      })
      .get("/workspaces/:workspace/git/diff", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.diff(cwd, request.signal);
      }, { params: Params, query: CwdQuery, response: { 200: DiffListBody, ...errors }, detail: detail("The named workspace's working tree against HEAD") })
      .get("/workspace/git/diff/file", async ({ query, request }) => (await trusted()).diffFile(root, query.path, query.oldPath, request.signal), {
        query: DiffFileQuery,
        response: { 200: DiffFileBody, ...errors },
        detail: detail("One file's hunks against HEAD"),
      })
      .get("/workspaces/:workspace/git/diff/file", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.diffFile(cwd, query.path, query.oldPath, request.signal);
      }, { params: Params, query: QualifiedDiffFileQuery, response: { 200: DiffFileBody, ...errors }, detail: detail("One file's hunks against HEAD in the named workspace") })
      .get("/workspace/git/log", async ({ query, request }) => (await trusted()).log(root, logQuery(query), request.signal), {
        query: LogQuery,
        response: { 200: LogBody, ...errors },
        detail: detail("A page of commits, newest first"),
      })
      .get("/workspaces/:workspace/git/log", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.log(cwd, logQuery(query), request.signal);
      }, { params: Params, query: QualifiedLogQuery, response: { 200: LogBody, ...errors }, detail: detail("A page of the named workspace's commits") })
      .get("/workspace/git/log/commit", async ({ query, request }) => (await trusted()).commit(root, query.sha, request.signal), {
        query: CommitQuery,
        response: { 200: CommitBody, ...errors },
        detail: detail("One commit and the files it changed"),
      })
      .get("/workspaces/:workspace/git/log/commit", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.commit(cwd, query.sha, request.signal);
      }, { params: Params, query: QualifiedCommitQuery, response: { 200: CommitBody, ...errors }, detail: detail("One commit of the named workspace") })
      .get("/workspaces/:workspace/git/remotes", async ({ params, query, request }) => {
        const [views, cwd] = await qualified(params.workspace, query.cwd);
        return views.remotes(cwd, request.signal);
      }, { params: Params, query: CwdQuery, response: { 200: RemotesBody, ...errors }, detail: detail("The remotes the named workspace's repository defines") })
  );
};
