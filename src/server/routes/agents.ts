/**
 * `GET /workspace/agents`, `GET /workspace/agents/:agentType` (and their `/workspaces/:workspace/`
 * forms) and `POST /workspace/agents/generate` (strict): the subagent definitions
 * (`workspace/agents/`, loaded on first use), read by the daemon itself as the reference daemon
 * does, with or without a live agent. In an untrusted workspace the listing holds the user's and the
 * built-in definitions only, with an `untrusted_workspace` cell in `errors` (the built-in agent's
 * `task` tool does not read the project's there either); a file that cannot be read or parsed is an
 * `invalid_definition` cell and the others are listed.
 *
 * Writes (strict; `X-Svc-Client-Id` optional, registered when given):
 *
 *   POST   /workspace/agents               {scope: workspace|global, name, description, systemPrompt, …} → 201 {ok, agent}
 *   POST   /workspace/agents/:agentType    ?scope, {description?, systemPrompt?, tools?, …} → {ok, agent, changed}
 *   DELETE /workspace/agents/:agentType    ?scope → 204
 *
 * and the same under `/workspaces/:workspace/`, which reach that workspace's project level only
 * (`global` is 400 `global_scope_not_supported_for_workspace_route`, the reference's).
 *
 * `agent-writer.ts` does the work (project level in trusted workspaces only, no folder through a
 * link, atomic files); each change is published as `agent_changed {change, name, level}`.
 * `GET /workspace/agents/:agentType?scope=` reads one level.
 *
 * Generate asks the workspace's agent (started if needed) to draft `{name, description,
 * systemPrompt}` from a description (`<prefix>/control/workspace/agents/generate`, Qwen Code's
 * method; the built-in agent has it too); nothing is written. An agent without the method is 501
 * `agent_control_unsupported`; an untrusted workspace is 403 `untrusted_workspace` (the reference's).
 */
import { t, type Static } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { control, protocolError } from "../../runtime/profile-controls.ts";
import type { WorkspaceScope } from "../../workspace-registry/workspace-scope.ts";
import type { AgentDefinition, WritableLevel, WriteWhere } from "../../workspace/agents/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { AgentDetail, AgentGenerateBody, AgentScopeQuery, AgentsStatus, AgentWriteBody, AgentWritten, GeneratedAgent } from "./agents-schemas.ts";
import { optionalWorkspaceClient } from "./session-params.ts";
import { WorkspaceSelector } from "./history-schemas.ts";
import { workspaceForms, type WorkspaceForm } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

type AgentsModule = typeof import("../../workspace/agents/index.ts");

/** The reference's bound of a generate description. */
export const MAX_GENERATE_DESCRIPTION_BYTES = 4096;
/** Longest field of a drafted definition passed on; a longer answer is a protocol error. */
const MAX_GENERATED_FIELD_CHARS = 64 * 1024;
/** A draft may take the model a while (the reference allows 5 minutes). */
const GENERATE_TIMEOUT_MS = 300_000;

const AgentType = t.String({ maxLength: 256 });
const AgentTypeParams = t.Object({ agentType: AgentType });
const invalidAgentType = () => new DaemonError(400, "invalid_agent_type", "`agentType` must contain only letters, numbers, hyphens, or underscores (2 to 64 chars)");

/**
 * `scope` as a level: `workspace` → project, `global` → user, absent allowed unless `required`,
 * anything else 400 `invalid_scope`. The qualified form reaches its workspace's project only (the
 * reference's): absent, `workspace` or `project`; `global` or `user` is 400
 * `global_scope_not_supported_for_workspace_route`.
 */
function scopeLevel(form: WorkspaceForm, scope: unknown, required: boolean): WritableLevel | undefined {
  if (form.qualified) {
    if (scope === undefined || scope === "workspace" || scope === "project") return "project";
    if (scope === "global" || scope === "user") throw new DaemonError(400, "global_scope_not_supported_for_workspace_route", "Workspace-qualified agents routes only support workspace/project scope");
    throw new DaemonError(400, "invalid_scope", '`scope` must be "workspace" or "project"');
  }
  if (scope === undefined && !required) return undefined;
  if (scope === "workspace") return "project";
  if (scope === "global") return "user";
  throw new DaemonError(400, "invalid_scope", '`scope` must be "workspace" or "global"');
}

const summary = (d: AgentDefinition) => ({
  kind: "agent" as const,
  name: d.name,
  description: d.description,
  level: d.level,
  isBuiltin: d.level === "builtin",
  hasTools: (d.tools?.length ?? 0) > 0,
  ...(d.tools ? { tools: [...d.tools] } : {}),
  ...(d.disallowedTools ? { disallowedTools: [...d.disallowedTools] } : {}),
  ...(d.model ? { model: d.model } : {}),
  ...(d.color ? { color: d.color } : {}),
  ...(d.maxTurns !== undefined ? { maxTurns: d.maxTurns } : {}),
  ...(d.filePath ? { filePath: d.filePath } : {}),
});

export const agentsRoutes = (app: RouteApp, deps: AppDeps) => {
  let loaded: Promise<AgentsModule> | null = null;
  const load = () => (loaded ??= import("../../workspace/agents/index.ts"));
  const where = (scope: WorkspaceScope) => ({ workspace: scope.path, dataDir: deps.config.dataDir, trusted: scope.trust.trusted });

  async function list(scope: WorkspaceScope): Promise<Static<typeof AgentsStatus>> {
    const listing = await (await load()).listAgents(where(scope));
    const errors = [
      ...(listing.projectSkipped ? [{ kind: "agent" as const, status: "error" as const, error: "Workspace is not trusted: its agent definitions are not read.", errorKind: "untrusted_workspace" }] : []),
      ...listing.errors.map((e) => ({ kind: "agent" as const, status: "error" as const, error: e.error, errorKind: "invalid_definition", hint: e.filePath })),
    ];
    return { v: 1, workspaceCwd: scope.path, agents: listing.agents.map(summary), ...(errors.length > 0 ? { errors } : {}) };
  }

  /** The definition in force, or (`?scope=`) the one at that level; the qualified form's `scope` is its project. */
  async function detail(form: WorkspaceForm, scope: WorkspaceScope, agentType: string, scopeQuery: unknown): Promise<Static<typeof AgentDetail>> {
    const module = await load();
    if (!module.validAgentType(agentType)) throw invalidAgentType();
    const level = scopeQuery === undefined ? undefined : scopeLevel(form, scopeQuery, false);
    const found = level === undefined ? await module.loadAgent(where(scope), agentType) : ((await module.listLevel(where(scope), level)).agents.find((a) => a.name === agentType) ?? null);
    if (!found) throw new DaemonError(404, "agent_not_found", `Subagent "${agentType}" not found`, { name: agentType });
    return { ...summary(found), systemPrompt: found.systemPrompt };
  }

  async function generate(scope: WorkspaceScope, description: string): Promise<Static<typeof GeneratedAgent>> {
    const trimmed = description.trim();
    if (trimmed === "") throw new DaemonError(400, "invalid_description", "`description` must be a non-empty string");
    if (Buffer.byteLength(description, "utf8") > MAX_GENERATE_DESCRIPTION_BYTES) throw new DaemonError(400, "invalid_description", `\`description\` exceeds the ${MAX_GENERATE_DESCRIPTION_BYTES}-byte limit`);
    if (!scope.trust.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
    const live = await scope.runtime.ensureStarted();
    const answer = await control<Record<string, unknown> | null>(live, "workspace/agents/generate", { cwd: scope.path, description: trimmed }, "generate an agent definition", GENERATE_TIMEOUT_MS);
    const field = (key: string) => {
      const value = answer?.[key];
      if (typeof value !== "string" || value === "" || value.length > MAX_GENERATED_FIELD_CHARS) throw protocolError("the agent generation");
      return value;
    };
    return { name: field("name"), description: field("description"), systemPrompt: field("systemPrompt") };
  }

  function* liveSessions(scope: WorkspaceScope) {
    for (const session of deps.sessions.all()) if (session.runtime === scope.runtime && !session.isEnded) yield session;
  }
  const writeWhere = (scope: WorkspaceScope): WriteWhere => ({ ...where(scope), projectFolder: scope.runtime.extensionPrefix === "qwen" ? ".qwen/agents" : ".svc/agents" });
  /** A project change reaches the workspace's sessions; a user-level one every workspace's, as every workspace reads that folder. */
  const announce = (scope: WorkspaceScope, change: "created" | "updated" | "deleted", name: string, level: WritableLevel, clientId: string | null) => {
    const sessions = level === "user" ? [...deps.sessions.all()].filter((s) => !s.isEnded) : liveSessions(scope);
    for (const session of sessions) session.publish("agent_changed", { change, name, level }, clientId === null ? {} : { originatorClientId: clientId });
  };
  /** The level a write reaches; the project's is written in a trusted workspace only. */
  const writeLevel = (form: WorkspaceForm, scope: WorkspaceScope, query: unknown, required: boolean) => {
    const level = scopeLevel(form, query, required);
    if (level === "project" && !scope.trust.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
    return level;
  };

  async function create(form: WorkspaceForm, scope: WorkspaceScope, body: Record<string, unknown>, clientId: string | null): Promise<Static<typeof AgentWritten>> {
    const module = await load();
    const level = writeLevel(form, scope, body.scope, true)!;
    const name = module.readName(body);
    const fields = module.readFields(body);
    if (fields.description === undefined || fields.systemPrompt === undefined) throw new DaemonError(422, "invalid_config", "`description` and `systemPrompt` are required", { name });
    const agent = await module.createAgent(writeWhere(scope), level, name, { ...fields, description: fields.description, systemPrompt: fields.systemPrompt });
    announce(scope, "created", name, level, clientId);
    return { ok: true, agent: { ...summary(agent), systemPrompt: agent.systemPrompt } };
  }

  async function update(form: WorkspaceForm, scope: WorkspaceScope, agentType: string, query: unknown, body: Record<string, unknown>, clientId: string | null): Promise<Static<typeof AgentWritten>> {
    const module = await load();
    if (!module.validAgentType(agentType)) throw invalidAgentType();
    const level = writeLevel(form, scope, query, false);
    const found = await module.findWritable(writeWhere(scope), agentType, level);
    if (!found) {
      if (agentType === module.GENERAL_PURPOSE.name && level === undefined) throw module.readonly(module.GENERAL_PURPOSE);
      throw new DaemonError(404, "agent_not_found", `Subagent "${agentType}" not found`, { name: agentType });
    }
    const updates = module.readFields(body);
    if (Object.keys(updates).length === 0) throw new DaemonError(400, "invalid_config", "`POST /workspace/agents/:agentType` requires at least one updatable field in the body", { name: agentType });
    const { agent, changed } = await module.updateAgent(writeWhere(scope), found, updates);
    if (changed) announce(scope, "updated", agent.name, agent.level as WritableLevel, clientId);
    return { ok: true, agent: { ...summary(agent), systemPrompt: agent.systemPrompt }, changed };
  }

  async function remove(form: WorkspaceForm, scope: WorkspaceScope, agentType: string, query: unknown, clientId: string | null): Promise<void> {
    const module = await load();
    if (!module.validAgentType(agentType)) throw invalidAgentType();
    const removed = await module.deleteAgent(writeWhere(scope), agentType, writeLevel(form, scope, query, false));
    for (const level of removed) announce(scope, "deleted", agentType, level, clientId);
  }

  /** The writes on a form: the legacy one on the primary workspace, the qualified one on the workspace named (its project only). */
  const writeRoutes = (form: WorkspaceForm) => {
    const params = form.qualified ? t.Object({ workspace: WorkspaceSelector, agentType: AgentType }) : AgentTypeParams;
    const strict = (summaryText: string) => form.detail("workspace_agents", summaryText, { "x-svc-strict": true });
    const writeErrors = errorResponses({ body: true, also: [...form.also, 403, 404, 409, 422] });
    const client = (scope: WorkspaceScope, request: Request) => optionalWorkspaceClient(liveSessions(scope), request);
    const reaches = form.qualified ? "the workspace's (`scope` absent, `workspace` or `project`; trusted workspaces only)" : "the workspace's (`scope: workspace`, trusted workspaces only) or the user's (`global`)";
    return app
      .post(
        form.path("/workspace", "/agents"),
        async ({ params, body, request, set }) => {
          const scope = form.scope(params);
          const answer = await create(form, scope, body, client(scope, request));
          set.status = 201;
          return answer;
        },
        {
          ...form.hooks,
          headers: ClientIdHeaders,
          body: AgentWriteBody,
          response: { 201: AgentWritten, ...writeErrors },
          detail: strict(`Create a subagent definition: ${reaches}`),
        },
      )
      .post(
        form.path("/workspace", "/agents/:agentType"),
        ({ params, query, body, request }) => {
          const scope = form.scope(params);
          return update(form, scope, params.agentType, query.scope, body, client(scope, request));
        },
        {
          params,
          query: AgentScopeQuery,
          headers: ClientIdHeaders,
          body: AgentWriteBody,
          response: { 200: AgentWritten, ...writeErrors },
          detail: strict("Update a subagent definition where it lives (`?scope=` picks the level); `changed: false` when nothing changed"),
        },
      )
      .delete(
        form.path("/workspace", "/agents/:agentType"),
        async ({ params, query, request, set }) => {
          const scope = form.scope(params);
          await remove(form, scope, params.agentType, query.scope, client(scope, request));
          set.status = 204;
        },
        {
          params,
          query: AgentScopeQuery,
          headers: ClientIdHeaders,
          response: { 204: t.Void({ description: "Deleted" }), ...errorResponses({ also: [...form.also, 400, 403, 404, 409] }) },
          detail: strict(`Delete a subagent definition (\`?scope=\` picks the level; absent: ${form.qualified ? "the workspace's" : "every writable level that has it"})`),
        },
      );
  };

  app.post("/workspace/agents/generate", ({ body }) => generate(deps.runtimes.primaryScope, body.description), {
    body: AgentGenerateBody,
    response: { 200: GeneratedAgent, ...errorResponses({ body: true, also: [403, 501, 502, 503, 504] }) },
    detail: { ...workspaceForms(deps.runtimes)[0].detail("workspace_agent_generate", "Draft a subagent definition from a description with the workspace's agent (nothing is written)", { "x-svc-strict": true }) },
  });
  for (const form of workspaceForms(deps.runtimes)) {
    formRoutes(app, form, list, detail);
    writeRoutes(form);
  }
  return app;
};

function formRoutes(app: RouteApp, form: WorkspaceForm, list: (scope: WorkspaceScope) => Promise<Static<typeof AgentsStatus>>, detail: (form: WorkspaceForm, scope: WorkspaceScope, agentType: string, scopeQuery: unknown) => Promise<Static<typeof AgentDetail>>) {
  const agentType = t.String({ maxLength: 256 });
  const params = form.qualified ? t.Object({ workspace: WorkspaceSelector, agentType }) : t.Object({ agentType });
  return app
    .get(form.path("/workspace", "/agents"), ({ params }) => list(form.scope(params)), {
      ...form.hooks,
      response: { 200: AgentsStatus, ...errorResponses({ also: form.also }) },
      detail: form.detail("workspace_agents", "The subagent definitions in force (project, user, built-in), with the files that could not be read"),
    })
    .get(form.path("/workspace", "/agents/:agentType"), ({ params, query }) => detail(form, form.scope(params), params.agentType, query.scope), {
      params,
      query: AgentScopeQuery,
      response: { 200: AgentDetail, ...errorResponses({ also: [...form.also, 400, 404] }) },
      detail: form.detail("workspace_agents", "One subagent definition with its system prompt"),
    });
}
