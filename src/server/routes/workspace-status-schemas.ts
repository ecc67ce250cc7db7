/**
 * Response schemas of `GET /workspace/{mcp,skills,providers,tools}` (spec "MCP snapshot", "Skills",
 * "Providers", "Workspace tools"). Every object is closed: the members are those `status-redact.ts`
 * lets through, so the schema documents the allowlist and normalisation drops anything else.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { StatusCell } from "../schemas/workspace-cells.ts";

const CellStatus = t.Union([t.Literal("ok"), t.Literal("warning"), t.Literal("error"), t.Literal("disabled"), t.Literal("not_started"), t.Literal("unknown")]);

/** The members every status cell has. */
const cellMembers = {
  status: CellStatus,
  error: t.Optional(t.String()),
  errorKind: t.Optional(t.String()),
  hint: t.Optional(t.String()),
};

/** `v`, `workspaceCwd`, `initialized` and `errors?`, shared by every workspace status envelope. */
const envelope = {
  v: t.Literal(1),
  workspaceCwd: t.String(),
  initialized: t.Boolean({ description: "false while no agent child is live: the snapshot is empty then" }),
  errors: t.Optional(t.Array(StatusCell, { description: "why (part of) the snapshot is missing: the agent failed, timed out or cannot report it; omitted on success" })),
};

const McpServerCell = t.Object({
  kind: t.Literal("mcp_server"),
  ...cellMembers,
  name: t.Optional(t.String()),
  mcpStatus: t.Optional(t.String({ description: "seen: connected, connecting, disconnected" })),
  transport: t.Optional(t.String({ description: "stdio, sse, http, websocket, sdk or unknown" })),
  disabled: t.Optional(t.Boolean()),
  description: t.Optional(t.String()),
  extensionName: t.Optional(t.String()),
  disabledReason: t.Optional(t.String({ description: "config (operator list) or budget (refused by enforce mode)" })),
  approvalState: t.Optional(t.String()),
  authenticationState: t.Optional(t.String()),
  requiresAuth: t.Optional(t.Boolean()),
  configOrigin: t.Optional(t.String()),
  source: t.Optional(t.String()),
  removable: t.Optional(t.Boolean()),
  entryCount: t.Optional(Type.Integer()),
  resourceCount: t.Optional(Type.Integer()),
  promptCount: t.Optional(Type.Integer()),
});

const McpBudgetCell = t.Object({
  kind: t.Literal("mcp_budget"),
  ...cellMembers,
  scope: t.Optional(t.String({ description: "session today; tolerate other scopes" })),
  liveCount: t.Optional(Type.Integer()),
  budget: t.Optional(Type.Integer()),
  mode: t.Optional(t.String()),
  refusedCount: t.Optional(Type.Integer()),
});

export const McpSnapshot = t.Object({
  ...envelope,
  discoveryState: t.Optional(t.Union([t.Literal("not_started"), t.Literal("in_progress"), t.Literal("completed")], { description: "as the agent reports it; absent when it cannot" })),
  servers: t.Array(McpServerCell),
  clientCount: t.Optional(Type.Integer()),
  clientBudget: t.Optional(Type.Integer()),
  budgetMode: t.Optional(t.Union([t.Literal("enforce"), t.Literal("warn"), t.Literal("off")])),
  budgets: t.Optional(t.Array(McpBudgetCell)),
});

const SkillCell = t.Object({
  kind: t.Literal("skill"),
  ...cellMembers,
  name: t.Optional(t.String()),
  description: t.Optional(t.String()),
  level: t.Optional(t.String({ description: "project, user, extension or bundled" })),
  modelInvocable: t.Optional(t.Boolean()),
  argumentHint: t.Optional(t.String()),
  disabledReason: t.Optional(t.String()),
  userInvocable: t.Optional(t.Boolean()),
  extensionName: t.Optional(t.String()),
  extensionDisplayName: t.Optional(t.String()),
});

export const SkillsSnapshot = t.Object({ ...envelope, skills: t.Array(SkillCell) });

const ProviderModel = t.Object({
  modelId: t.String(),
  baseModelId: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  contextLimit: t.Union([Type.Integer(), t.Null()], { description: "null when the agent does not say (a generic ACP agent)" }),
  isCurrent: t.Boolean(),
  isRuntime: t.Boolean(),
});

const ProviderCell = t.Object({
  kind: t.Literal("model_provider"),
  ...cellMembers,
  authType: t.Optional(t.String({ description: "`unknown` for an agent that speaks standard ACP only" })),
  current: t.Boolean(),
  models: t.Array(ProviderModel),
});

export const ProvidersSnapshot = t.Object({
  ...envelope,
  current: t.Optional(t.Object({ authType: t.Optional(t.String()), modelId: t.Optional(t.String()) })),
  providers: t.Array(ProviderCell, { description: "grouped by auth type" }),
});

const Tool = t.Object({
  name: t.Optional(t.String()),
  displayName: t.Optional(t.String()),
  description: t.Optional(t.String()),
  enabled: t.Boolean(),
});

export const ToolsSnapshot = t.Object({ ...envelope, acpChannelLive: t.Boolean(), tools: t.Array(Tool) });
