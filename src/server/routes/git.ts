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
 * config. Every answer is the form's workspace's (`workspace-forms.ts`): its root, its trust, its views
 * (one per workspace, built on first use). The views (`workspace/git/`) and the process runner
 * (`runtime/git-process.ts`) load on the first request. A request's git runs stop when its client goes away (`request.signal`). Every answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.
 */
import { stat } from "node:fs/promises";
import { Elysia } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { childEnv } from "../../runtime/child-env.ts";
import { resolveExisting } from "../../workspace/contained-fs.ts";
import { parseError } from "../../workspace/fs-errors.ts";
import type { GitViews } from "../../workspace/git/index.ts";
import { DEFAULT_LOG_LIMIT } from "../../workspace/git/git-limits.ts";
import { refuseNested } from "../../workspace/nested-workspaces.ts";
import { normalizeRequestPath } from "../../workspace/paths.ts";
import type { WorkspaceScope } from "../../workspace-registry/workspace-scope.ts";
import type { AppDeps } from "../app-deps.ts";
import { ScopeCache, nestedRoots } from "../scope-cache.ts";
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
import { workspaceForms, type WorkspaceForm } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

const TAG = "workspace_git";
/**
 * 400 a query's `parse_error` or a path outside the workspace (file-route bodies), 403 untrusted, 404
 * either body (`cwd` not found; no such workspace, not a repository), 503 no usable git or no answer in time.
 */
const errors = fsErrorResponses([400, 404], { also: [404] });

const untrusted = () => new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");

export const gitRoutes = (app: RouteApp, deps: AppDeps) => {
  const scopes = deps.runtimes;
  let loaded: Promise<GitModules> | null = null;
  const load = () => (loaded ??= Promise.all([import("../../workspace/git/index.ts"), import("../../runtime/git-process.ts")]));
  /** Each workspace's views, built on first use over its own root. */
  const cache = new ScopeCache(scopes, (scope) =>
    load().then(([git, proc]) => new git.GitViews({ root: scope.path, baseEnv: childEnv(deps.config.agent.baseEnv), runner: (path, env) => proc.gitProcessRunner(path, env) })),
  );

  /** The directory a `cwd` query names: the workspace when absent, else a directory inside it (links followed only within, never into a nested workspace). */
  async function cwdOf(scope: WorkspaceScope, raw: string | undefined): Promise<string> {
    const root = scope.path;
    if (raw === undefined || raw === "") return root;
    const rel = normalizeRequestPath(root, raw);
    await refuseNested(root, rel, nestedRoots(scopes, scope));
    const real = await resolveExisting(root, rel);
    if (!(await stat(real)).isDirectory()) throw parseError("cwd must be a directory inside the workspace");
    return real;
  }

  /** The form's workspace, its views and directory, checked in the reference's order: workspace, trust, cwd. */
  const target = (form: WorkspaceForm) => async (params: unknown, cwd: string | undefined) => {
    const scope = form.scope(params);
    if (!scope.trust.trusted) throw untrusted();
    const views = await cache.get(scope);
    return { views, cwd: await cwdOf(scope, cwd) };
  };

  // A plugin of their own for a hook local to these routes.
  const git = new Elysia({ name: "routes/git" })
    .use(apiModelNames)
    .mapResponse(({ set }) => {
      set.headers["cache-control"] = "no-store";
      set.headers["x-content-type-options"] = "nosniff";
    });
  for (const form of workspaceForms(scopes)) formRoutes(git, form, target(form));
  return app.use(git);
};

type GitModules = [typeof import("../../workspace/git/index.ts"), typeof import("../../runtime/git-process.ts")];
type Target = (params: unknown, cwd: string | undefined) => Promise<{ views: GitViews; cwd: string }>;

const logQuery = (q: { limit?: number; skip?: number; range?: string; all?: string; search?: string }) => ({
  limit: q.limit ?? DEFAULT_LOG_LIMIT,
  skip: q.skip ?? 0,
  all: q.all === "1",
  ...(q.range === undefined ? {} : { range: q.range }),
  ...(q.search === undefined ? {} : { search: q.search }),
});

/** One form's views. The legacy form takes no `cwd` (its queries lack it), and only the qualified form lists remotes (as the reference). */
function formRoutes(app: RouteApp, form: WorkspaceForm, target: Target) {
  const at = (rest: string) => form.path("/workspace", rest);
  const detail = (summary: string) => form.detail(TAG, summary);
  const q = form.qualified;
  app
    .get(at("/git"), async ({ params, query, request }) => {
      const { views, cwd } = await target(params, (query as { cwd?: string }).cwd);
      return views.status(cwd, request.signal);
    }, { ...form.hooks, query: q ? QualifiedStatusQuery : StatusQuery, response: { 200: GitStatusBody, ...errors }, detail: detail("The working tree's summary: branch, upstream distance, changed entries, stashes") })
    .get(at("/git/branches"), async ({ params, query, request }) => {
      const { views, cwd } = await target(params, (query as { cwd?: string }).cwd);
      return views.branches(cwd, request.signal);
    }, { ...form.hooks, ...(q ? { query: CwdQuery } : {}), response: { 200: BranchesBody, ...errors }, detail: detail("Branches, remote-tracking branches, tags and HEAD") })
    .get(at("/git/diff"), async ({ params, query, request }) => {
      const { views, cwd } = await target(params, (query as { cwd?: string }).cwd);
      return views.diff(cwd, request.signal);
    }, { ...form.hooks, ...(q ? { query: CwdQuery } : {}), response: { 200: DiffListBody, ...errors }, detail: detail("The working tree against HEAD: totals and the first files") })
    .get(at("/git/diff/file"), async ({ params, query, request }) => {
      const { views, cwd } = await target(params, (query as { cwd?: string }).cwd);
      return views.diffFile(cwd, query.path, query.oldPath, request.signal);
    }, { ...form.hooks, query: q ? QualifiedDiffFileQuery : DiffFileQuery, response: { 200: DiffFileBody, ...errors }, detail: detail("One file's hunks against HEAD") })
    .get(at("/git/log"), async ({ params, query, request }) => {
      const { views, cwd } = await target(params, (query as { cwd?: string }).cwd);
      return views.log(cwd, logQuery(query), request.signal);
    }, { ...form.hooks, query: q ? QualifiedLogQuery : LogQuery, response: { 200: LogBody, ...errors }, detail: detail("A page of commits, newest first") })
    .get(at("/git/log/commit"), async ({ params, query, request }) => {
      const { views, cwd } = await target(params, (query as { cwd?: string }).cwd);
      return views.commit(cwd, query.sha, request.signal);
    }, { ...form.hooks, query: q ? QualifiedCommitQuery : CommitQuery, response: { 200: CommitBody, ...errors }, detail: detail("One commit and the files it changed") });
  if (!q) return;
  app.get(at("/git/remotes"), async ({ params, query, request }) => {
    const { views, cwd } = await target(params, query.cwd);
    return views.remotes(cwd, request.signal);
  }, { ...form.hooks, query: CwdQuery, response: { 200: RemotesBody, ...errors }, detail: detail("The remotes the workspace's repository defines") });
}
