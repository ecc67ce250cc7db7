/**
 * `GET /workspace/memory` and `POST /workspace/memory` (strict), and their `/workspaces/:workspace/`
 * forms: the instruction files of the workspace and of the user (`workspace/memory/`, loaded on
 * first use), read and written by the daemon itself as the reference daemon does, with or without
 * a live agent. In an untrusted workspace the listing holds the user's files only, with an
 * `untrusted_workspace` cell in `errors` (the built-in agent does not read the project's files
 * there either), and a write to the project's file is 403 `untrusted_workspace`. A write that
 * changed the file publishes `memory_changed {scope, filePath, mode, bytesWritten}` to the
 * workspace's live sessions; the built-in agent reads the files again at its next turn.
 */
import { type Static } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import type { WorkspaceScope } from "../../workspace-registry/workspace-scope.ts";
import type { AppDeps } from "../app-deps.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { MemoryStatus, MemoryWriteAnswer, MemoryWriteBody } from "./memory-schemas.ts";
import { workspaceForms, type WorkspaceForm } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

type MemoryModule = typeof import("../../workspace/memory/index.ts");

export const memoryRoutes = (app: RouteApp, deps: AppDeps) => {
  let loaded: Promise<MemoryModule> | null = null;
  const load = () => (loaded ??= import("../../workspace/memory/index.ts"));
  const where = (scope: WorkspaceScope) => ({ workspace: scope.path, dataDir: deps.config.dataDir, trusted: scope.trust.trusted });

  async function status(scope: WorkspaceScope): Promise<Static<typeof MemoryStatus>> {
    const { files, errors } = await (await load()).listMemory(where(scope));
    return {
      v: 1,
      workspaceCwd: scope.path,
      initialized: files.length > 0 || errors.length > 0,
      files,
      totalBytes: files.reduce((sum, f) => sum + f.bytes, 0),
      fileCount: files.length,
      ruleCount: 0,
      ...(errors.length > 0 ? { errors } : {}),
    };
  }

  async function write(scope: WorkspaceScope, body: Static<typeof MemoryWriteBody>): Promise<Static<typeof MemoryWriteAnswer>> {
    if (body.scope === "workspace" && !scope.trust.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
    const mode = body.mode ?? "append";
    const result = await (await load()).writeMemory({ ...where(scope), scope: body.scope, mode, content: body.content });
    if (result.changed)
      for (const session of deps.sessions.all())
        if (session.runtime === scope.runtime && !session.isEnded) session.publish("memory_changed", { scope: body.scope, filePath: result.filePath, mode, bytesWritten: result.bytesWritten });
    return { ok: true, ...result, mode };
  }
  for (const form of workspaceForms(deps.runtimes)) formRoutes(app, form, status, write);
  return app;
};

function formRoutes(app: RouteApp, form: WorkspaceForm, status: (scope: WorkspaceScope) => Promise<Static<typeof MemoryStatus>>, write: (scope: WorkspaceScope, body: Static<typeof MemoryWriteBody>) => Promise<Static<typeof MemoryWriteAnswer>>) {
  const path = form.path("/workspace", "/memory");
  return app
    .get(path, ({ params }) => status(form.scope(params)), {
      ...form.hooks,
      response: { 200: MemoryStatus, ...errorResponses({ also: form.also }) },
      detail: form.detail("workspace_memory", "The instruction files (AGENTS.md, QWEN.md, CLAUDE.md, GEMINI.md) of the user and the project, with sizes, in prompt order"),
    })
    .post(path, ({ params, body }) => write(form.scope(params), body), {
      ...form.hooks,
      body: MemoryWriteBody,
      response: { 200: MemoryWriteAnswer, ...errorResponses({ body: true, also: [...form.also, 403, 409, 413] }) },
      detail: form.detail("workspace_memory", "Append to or replace the user's or the project's AGENTS.md (atomic; never through a link)", { "x-svc-strict": true }),
    });
}
