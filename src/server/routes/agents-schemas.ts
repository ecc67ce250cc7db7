/** Shapes of `GET /workspace/agents[/:agentType]` and `POST /workspace/agents/generate` (the reference daemon's). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";

const AgentLevel = t.Union([t.Literal("project"), t.Literal("user"), t.Literal("builtin")], { description: "`project`: the workspace's `.svc/agents/` or `.qwen/agents/` (trusted workspaces only); `user`: the data dir's `agents/`" });

const summaryFields = {
  kind: t.Literal("agent"),
  name: t.String(),
  description: t.String(),
  level: AgentLevel,
  isBuiltin: t.Boolean(),
  hasTools: t.Boolean({ description: "true when the definition has a tool allow-list" }),
  tools: t.Optional(t.Array(t.String())),
  disallowedTools: t.Optional(t.Array(t.String())),
  model: t.Optional(t.String()),
  color: t.Optional(t.String()),
  maxTurns: t.Optional(Type.Integer({ minimum: 1 })),
  filePath: t.Optional(t.String()),
};

export const AgentSummary = t.Object(summaryFields, { additionalProperties: false });
export const AgentDetail = t.Object({ ...summaryFields, systemPrompt: t.String() }, { additionalProperties: false });

const AgentProblem = t.Object(
  {
    kind: t.Literal("agent"),
    status: t.Literal("error"),
    error: t.String(),
    errorKind: t.String({ description: "`untrusted_workspace` (the project's definitions not read) or `invalid_definition` (the file named in `hint` was skipped)" }),
    hint: t.Optional(t.String()),
  },
  { additionalProperties: false },
);

export const AgentsStatus = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: t.String(),
    agents: t.Array(AgentSummary, { description: "The definitions in force: project over user over built-in, one per name" }),
    errors: t.Optional(t.Array(AgentProblem)),
  },
  { additionalProperties: false },
);

export const AgentGenerateBody = t.Object({ description: t.String({ minLength: 1, description: "What the agent should do (at most 4096 bytes)" }) }, { additionalProperties: false });

export const GeneratedAgent = t.Object(
  { name: t.String(), description: t.String(), systemPrompt: t.String() },
  { additionalProperties: false, description: "A drafted definition, not written anywhere" },
);

/** `?scope=` of the detail, update and delete routes: `workspace` (level project) or `global` (level user). */
export const AgentScopeQuery = t.Object(
  { scope: t.Optional(t.String({ description: "`workspace` (the project's definition) or `global` (the user's); absent: the one in force" })) },
  { additionalProperties: true },
);

/** A create or update body: checked member by member by the route (422 `invalid_config`, the reference's). */
export const AgentWriteBody = t.Record(t.String(), t.Unknown(), {
  description:
    "Create: `{scope: workspace|global, name, description, systemPrompt, tools?, disallowedTools?, model?, color?, maxTurns?}`; update: any of the fields but `name` and `scope`",
});

export const AgentWritten = t.Object(
  { ok: t.Literal(true), agent: AgentDetail, changed: t.Optional(t.Boolean({ description: "Update: false when the body changed nothing (nothing written)" })) },
  { additionalProperties: false },
);
