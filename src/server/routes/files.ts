/**
 * Workspace file routes: `GET /file`, `/file/bytes`, `/stat`, `/list`, `/glob` and the strict
 * mutation routes `POST /file/write`, `/file/edit` on the primary workspace, and each under
 * `/workspaces/:workspace` on the named one (`workspace-forms.ts`). Thin: the work, path containment
 * included, is `WorkspaceFiles'`, one per workspace (its write locks must see every writer), built
 * on first use with the workspace's own trust; a path into another served workspace nested in it
 * is an escape. Every response of these routes, errors included, carries `Cache-Control: no-store`
 * and `X-Content-Type-Options: nosniff`.
 */
import { Elysia } from "elysia";
import { DEFAULT_BYTES_WINDOW, DEFAULT_GLOB_RESULTS } from "../../workspace/file-limits.ts";
import { WorkspaceFiles } from "../../workspace/workspace-files.ts";
import type { AppDeps } from "../app-deps.ts";
import { ScopeCache, nestedRoots } from "../scope-cache.ts";
import { apiModelNames } from "../schemas/api-models.ts";
import { fsErrorResponses } from "../schemas/error-statuses.ts";
import {
  BytesQuery,
  EditBody,
  EditResultBody,
  FileBytesBody,
  FileQuery,
  GlobBody,
  GlobQuery,
  ListBody,
  ListQuery,
  StatBody,
  StatQuery,
  TextFileBody,
  WriteBody,
  WriteResultBody,
  isOn,
} from "./file-schemas.ts";
import { workspaceForms, type WorkspaceForm } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

/** What the file handlers answer themselves (`FsErrorBody`); the front door's and the form's statuses are added. */
const readErrors = (form: WorkspaceForm) => fsErrorResponses([400, 403, 404, 413, 422, 503], { also: form.also });
const writeErrors = (form: WorkspaceForm) => fsErrorResponses([400, 401, 403, 404, 409, 413, 422, 503], { body: true, also: form.also });

export const fileRoutes = (app: RouteApp, deps: AppDeps) => {
  const scopes = deps.runtimes;
  const cache = new ScopeCache(scopes, (scope) => new WorkspaceFiles(scope.path, () => scope.trust.trusted, () => nestedRoots(scopes, scope)));
  // A plugin of their own for a hook local to these routes, which runs for error responses too (the global error mapper's included).
  const files = new Elysia({ name: "routes/files" })
    .use(apiModelNames)
    .mapResponse(({ set }) => {
      set.headers["cache-control"] = "no-store";
      set.headers["x-content-type-options"] = "nosniff";
    });
  for (const form of workspaceForms(scopes)) formRoutes(files, form, (params) => cache.get(form.scope(params)));
  return app.use(files);
};

function formRoutes(app: RouteApp, form: WorkspaceForm, filesOf: (params: unknown) => WorkspaceFiles) {
  const at = (rest: string) => form.path("", rest);
  return app
    .get(at("/file"), ({ params, query }) => filesOf(params).readText(query.path, query), {
      ...form.hooks,
      query: FileQuery,
      response: { 200: TextFileBody, ...readErrors(form) },
      detail: form.detail("workspace_file_read", "Read a workspace text file, whole or a line/byte window"),
    })
    .get(at("/file/bytes"), ({ params, query }) => filesOf(params).readBytes(query.path, query.offset ?? 0, query.maxBytes ?? DEFAULT_BYTES_WINDOW), {
      ...form.hooks,
      query: BytesQuery,
      response: { 200: FileBytesBody, ...readErrors(form) },
      detail: form.detail("workspace_file_bytes", "Read a byte window of any workspace file (base64)"),
    })
    .get(at("/stat"), ({ params, query }) => filesOf(params).stat(query.path), {
      ...form.hooks,
      query: StatQuery,
      response: { 200: StatBody, ...readErrors(form) },
      detail: form.detail("workspace_file_read", "Type, size and modification time of a workspace entry (symlinks not followed)"),
    })
    .get(at("/list"), ({ params, query }) => filesOf(params).list(query.path, isOn(query.includeIgnored)), {
      ...form.hooks,
      query: ListQuery,
      response: { 200: ListBody, ...readErrors(form) },
      detail: form.detail("workspace_file_read", "Entries of a workspace directory"),
    })
    .get(
      at("/glob"),
      ({ params, query }) =>
        filesOf(params).glob({
          pattern: query.pattern,
          cwd: query.cwd,
          maxResults: query.maxResults ?? DEFAULT_GLOB_RESULTS,
          includeIgnored: isOn(query.includeIgnored),
        }),
      {
        ...form.hooks,
        query: GlobQuery,
        response: { 200: GlobBody, ...readErrors(form) },
        detail: form.detail("workspace_file_read", "Workspace files matching a glob pattern"),
      },
    )
    .post(
      at("/file/write"),
      async ({ params, body, status }) => {
        const result = await filesOf(params).write(body.path, body);
        return result.created ? status(201, result) : result;
      },
      {
        ...form.hooks,
        body: WriteBody,
        response: { 200: WriteResultBody, 201: WriteResultBody, ...writeErrors(form) },
        detail: form.detail("workspace_file_write", "Create a file, or replace one whose hash you know (atomic)", { "x-svc-strict": true }),
      },
    )
    .post(at("/file/edit"), ({ params, body }) => filesOf(params).edit(body.path, body), {
      ...form.hooks,
      body: EditBody,
      response: { 200: EditResultBody, ...writeErrors(form) },
      detail: form.detail("workspace_file_write", "Replace one exact occurrence of a text in a file whose hash you know (atomic)", { "x-svc-strict": true }),
    });
}
