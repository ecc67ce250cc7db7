/**
 * The mutation control routes (spec "Mutation control routes"), all strict: with no bearer token
 * configured they answer 401 `token_required` at the front door, before any handler runs; they
 * count against the `mutation` rate tier like every other POST. Thin: the work is
 * `WorkspaceControls`'. Shapes follow the reference daemon (protocol-notes §2, §3.5).
 *
 *   POST /session/:id/approval-mode            {mode, persist?, planMode?} → {sessionId, mode, previous, persisted}
 *   POST /workspace/tools/:name/enable         {enabled} → {toolName, enabled}
 *   POST /workspace/skills/:name/enable        {enabled} → {skillName, enabled, changed, activation, …}
 *   POST /workspace/skills/enable              {skillNames, enabled} → {enabled, activation, …, results}
 *   POST /workspace/init                       {force?} → {path, action}
 *   POST /workspace/mcp/reload                 {forceReconnectAll? | forceReconnectWhich?} → 202 {accepted}
 *   POST /workspace/mcp/:server/restart        ?entryIndex → {serverName, restarted, …} or {serverName, entries}
 *   POST /workspace/mcp/servers                {name, config} → {name, transport, replaced, shadowedSettings, toolCount, originatorClientId}
 *   DELETE /workspace/mcp/servers/:name        → {name, removed, wasShadowingSettings, originatorClientId} or {name, skipped, reason}
 *
 * The last two (runtime MCP servers, held by the running agent only) need `X-Svc-Client-Id` of a
 * client of the workspace, as the reference's do.
 *
 * What the agent answers is rebuilt from known, bounded fields (`profile-controls.ts`); its error
 * answer is 502 `agent_control_failed`, a timeout 504 `agent_timeout`.
 */
import { WorkspaceControls } from "../../sessions/workspace-controls.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import {
  ApprovalModeAnswer,
  ApprovalModeBody,
  conflictingReload,
  EnableBody,
  InitAnswer,
  InitBody,
  invalidPlanMode,
  McpReloadAnswer,
  McpReloadBody,
  RestartAnswer,
  RestartQuery,
  RuntimeAddAnswer,
  RuntimeAddBody,
  RuntimeRemoveAnswer,
  RuntimeServerParams,
  ServerParams,
  SkillBatchAnswer,
  SkillBatchBody,
  SkillParams,
  SkillToggleAnswer,
  ToolParams,
  ToolToggleAnswer,
} from "./control-schemas.ts";
import { registeredClient, SessionIdParams, workspaceClient } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const strict = (tags: string | string[], summary: string) => capability(tags, { summary, "x-svc-strict": true });

/** What asking the agent can answer besides the route's own checks: 502 its error or an unknown answer, 504 no answer in time, 501 it lacks the method. */
const agentErrors = [501, 502, 504] as const;

export const controlRoutes = (app: RouteApp, deps: AppDeps) => {
  const runtime = deps.runtimes.primary;
  function* liveSessions() {
    for (const session of deps.sessions.all()) if (session.runtime === runtime && !session.isEnded) yield session;
  }
  const controls = new WorkspaceControls({
    runtime,
    trusted: () => deps.trust.trusted,
    logger: deps.logger,
    dataDir: deps.config.dataDir,
    sessions: liveSessions,
  });
  return app
    .post(
      "/session/:id/approval-mode",
      async ({ params, body, request }) => {
        if (body.planMode !== undefined && body.mode === "plan") throw invalidPlanMode();
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const request_ = { mode: body.mode, persist: body.persist === true, ...(body.planMode === undefined ? {} : { planMode: body.planMode }) };
        return await controls.approvalMode(session, request_, clientId);
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: ApprovalModeBody,
        response: { 200: ApprovalModeAnswer, ...errorResponses({ body: true, also: [404, 409, ...agentErrors] }) },
        detail: strict("session_approval_mode_control", "Set the session's approval mode (plan, default, auto-edit, auto, yolo)"),
      },
    )
    .post("/workspace/tools/:name/enable", ({ params, body }) => controls.toggleTool(params.name.trim(), body.enabled), {
      params: ToolParams,
      body: EnableBody,
      response: { 200: ToolToggleAnswer, ...errorResponses({ body: true, also: [409, ...agentErrors] }) },
      detail: strict("workspace_tool_toggle", "Enable or disable a tool in the workspace settings the agent reads (`tools.disabled`)"),
    })
    .post(
      "/workspace/skills/:name/enable",
      async ({ params, body }) => {
        const { results, ...rest } = await controls.toggleSkills([params.name.trim()], body.enabled);
        // The skill's own answer wins the batch's `enabled` (the host may keep it disabled).
        return { ...rest, ...results[0]! };
      },
      {
        params: SkillParams,
        body: EnableBody,
        response: { 200: SkillToggleAnswer, ...errorResponses({ body: true, also: [409, ...agentErrors] }) },
        detail: strict("workspace_skill_settings_toggle", "Enable or disable a skill (Qwen Code; `skills.disabled`)"),
      },
    )
    .post("/workspace/skills/enable", ({ body }) => controls.toggleSkills(uniqueNames(body.skillNames), body.enabled), {
      body: SkillBatchBody,
      response: { 200: SkillBatchAnswer, ...errorResponses({ body: true, also: [409, ...agentErrors] }) },
      detail: strict("workspace_skill_settings_batch_toggle", "Enable or disable several skills at once (Qwen Code)"),
    })
    .post("/workspace/init", ({ body }) => controls.init(body?.force === true), {
      body: InitBody,
      response: { 200: InitAnswer, ...errorResponses({ body: true, also: [409] }) },
      detail: strict("workspace_init", "Create the agent's workspace context file (QWEN.md or AGENTS.md); 409 when it has content, unless `force`"),
    })
    .post(
      "/workspace/mcp/reload",
      async ({ body, set }) => {
        if (body?.forceReconnectAll === true && body.forceReconnectWhich !== undefined) throw conflictingReload();
        const options = { ...(body?.forceReconnectAll === undefined ? {} : { forceReconnectAll: body.forceReconnectAll }), ...(body?.forceReconnectWhich ? { forceReconnectWhich: body.forceReconnectWhich } : {}) };
        const result = await controls.reloadMcp(options);
        set.status = 202;
        return result;
      },
      {
        body: McpReloadBody,
        response: { 202: McpReloadAnswer, ...errorResponses({ body: true, also: [409, ...agentErrors] }) },
        // The reference advertises no tag of its own for reload; it goes with restart, its sibling.
        detail: strict("workspace_mcp_restart", "Have the agent reload its MCP servers (202 once accepted)"),
      },
    )
    .post(
      "/workspace/mcp/:server/restart",
      ({ params, query }) => controls.restartMcp(params.server, query.entryIndex === undefined || query.entryIndex === "*" ? undefined : Number(query.entryIndex)),
      {
        params: ServerParams,
        query: RestartQuery,
        response: { 200: RestartAnswer, ...errorResponses({ also: [404, 409, ...agentErrors] }) },
        detail: strict("workspace_mcp_restart", "Have the agent restart one MCP server (or one pooled entry)"),
      },
    )
    .post("/workspace/mcp/servers", ({ body, request }) => controls.addRuntimeMcp(body.name, body.config, workspaceClient(liveSessions(), request, "runtime MCP mutation")), {
      headers: ClientIdHeaders,
      body: RuntimeAddBody,
      response: { 200: RuntimeAddAnswer, ...errorResponses({ body: true, also: [403, 409, ...agentErrors] }) },
      detail: strict("mcp_server_runtime_mutation", "Add (or replace) an MCP server in the running agent, for as long as it runs (not written to any settings)"),
    })
    .delete("/workspace/mcp/servers/:name", ({ params, request }) => controls.removeRuntimeMcp(params.name, workspaceClient(liveSessions(), request, "runtime MCP mutation")), {
      params: RuntimeServerParams,
      headers: ClientIdHeaders,
      response: { 200: RuntimeRemoveAnswer, ...errorResponses({ also: [400, 403, 409, ...agentErrors] }) },
      detail: strict("mcp_server_runtime_mutation", "Remove a runtime MCP server from the running agent (`skipped: true, reason: not_present` when there is none)"),
    });
};

/** The names with duplicates (compared case-insensitively) dropped, first spelling kept, as the reference does. */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push(name);
  }
  return out;
}
