/**
 * Workspace file routes on the primary workspace: `GET /file`, `/file/bytes`, `/stat`, `/list`,
 * `/glob` and the strict mutation routes `POST /file/write`, `/file/edit`. Thin: the work, path
 * containment included, is `WorkspaceFiles`'. Every response of these routes, errors included,
 * carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.
 */
import { Elysia } from "elysia";
import { DEFAULT_BYTES_WINDOW, DEFAULT_GLOB_RESULTS } from "../../workspace/file-limits.ts";
import { WorkspaceFiles } from "../../workspace/workspace-files.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
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

/** What the file handlers answer themselves (`FsErrorBody`); the front door's statuses are added. */
const readErrors = fsErrorResponses([400, 403, 404, 413, 422, 503]);
const writeErrors = fsErrorResponses([400, 401, 403, 404, 409, 413, 422, 503], { body: true });

export const fileRoutes = (deps: AppDeps) => {
  const files = new WorkspaceFiles(deps.config.workspace, () => deps.trust.trusted);
  return (
    new Elysia({ name: "routes/files" })
      .use(apiModelNames)
      // Local to these routes; runs for error responses too (the global error mapper's included).
      .mapResponse(({ set }) => {
        set.headers["cache-control"] = "no-store";
        set.headers["x-content-type-options"] = "nosniff";
      })
      .get("/file", ({ query }) => files.readText(query.path, query), {
        query: FileQuery,
        response: { 200: TextFileBody, ...readErrors },
        detail: capability("workspace_file_read", { summary: "Read a workspace text file, whole or a line/byte window" }),
      })
      .get("/file/bytes", ({ query }) => files.readBytes(query.path, query.offset ?? 0, query.maxBytes ?? DEFAULT_BYTES_WINDOW), {
        query: BytesQuery,
        response: { 200: FileBytesBody, ...readErrors },
        detail: capability("workspace_file_bytes", { summary: "Read a byte window of any workspace file (base64)" }),
      })
      .get("/stat", ({ query }) => files.stat(query.path), {
        query: StatQuery,
        response: { 200: StatBody, ...readErrors },
        detail: capability("workspace_file_read", { summary: "Type, size and modification time of a workspace entry (symlinks not followed)" }),
      })
      .get("/list", ({ query }) => files.list(query.path, isOn(query.includeIgnored)), {
        query: ListQuery,
        response: { 200: ListBody, ...readErrors },
        detail: capability("workspace_file_read", { summary: "Entries of a workspace directory" }),
      })
      .get(
        "/glob",
        ({ query }) =>
          files.glob({
            pattern: query.pattern,
            cwd: query.cwd,
            maxResults: query.maxResults ?? DEFAULT_GLOB_RESULTS,
            includeIgnored: isOn(query.includeIgnored),
          }),
        {
          query: GlobQuery,
          response: { 200: GlobBody, ...readErrors },
          detail: capability("workspace_file_read", { summary: "Workspace files matching a glob pattern" }),
        },
      )
      .post(
        "/file/write",
        async ({ body, status }) => {
          const result = await files.write(body.path, body);
          return result.created ? status(201, result) : result;
        },
        {
          body: WriteBody,
          response: { 200: WriteResultBody, 201: WriteResultBody, ...writeErrors },
          detail: capability("workspace_file_write", {
            summary: "Create a file, or replace one whose hash you know (atomic)",
            "x-svc-strict": true,
          }),
        },
      )
      .post("/file/edit", ({ body }) => files.edit(body.path, body), {
        body: EditBody,
        response: { 200: EditResultBody, ...writeErrors },
        detail: capability("workspace_file_write", {
          summary: "Replace one exact occurrence of a text in a file whose hash you know (atomic)",
          "x-svc-strict": true,
        }),
      })
  );
};
