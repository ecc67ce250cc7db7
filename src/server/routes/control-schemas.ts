/**
 * Request and answer schemas of the mutation control routes (`controls.ts`). Field checks answer
 * the reference daemon's codes (`invalid_approval_mode` with `allowed`, `invalid_enabled_flag`,
 * `invalid_tool_name`, …); unknown members of a body are ignored, as the reference ignores them.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { APPROVAL_MODES, MAX_AGENT_STRING, MAX_RESTART_ENTRIES } from "../../runtime/profile-controls.ts";
import { SERVER_NAME_PATTERN } from "../../workspace/mcp-server-settings.ts";
import { notAnObject } from "./session-params.ts";

/** Longest tool, skill or MCP server name taken (the reference's limit). */
export const MAX_NAME_LENGTH = 256;
/** Most skills one batch toggle names (the reference's limit). */
export const MAX_SKILL_BATCH = 100;

const fail = (code: string, message: string, fields?: Record<string, unknown>) => () => new DaemonError(400, code, message, fields).body();

/**
 * Characters no name may hold: C0 and C1 controls, DEL, and the invisible format characters that
 * can disguise a name (zero-width, bidirectional overrides and isolates, word joiner, BOM).
 */
const CONTROL_CHARS = "\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff";
/** At least one non-blank character and no CONTROL_CHARS. */
const NAME_PATTERN = `^(?=[\\s\\S]*\\S)[^${CONTROL_CHARS}]+$`;

/** A name in a path: at least one non-blank character, at most MAX_NAME_LENGTH, no control or invisible format character. */
const name = (code: string, what: string) =>
  t.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    pattern: NAME_PATTERN,
    description: what,
    error: fail(code, `${what} must be 1 to ${MAX_NAME_LENGTH} characters, not all blank, without control or invisible format characters`),
  });

const enabledFlag = t.Boolean({ description: "true enables, false disables", error: fail("invalid_enabled_flag", "`enabled` is required and must be a boolean") });

export const ApprovalModeBody = t.Object(
  {
    mode: t.Union(
      APPROVAL_MODES.map((m) => t.Literal(m)),
      { description: "The approval mode to set", error: fail("invalid_approval_mode", "`mode` is required and must be one of the allowed values", { allowed: APPROVAL_MODES }) },
    ),
    persist: t.Optional(t.Boolean({ description: "Also write it to the workspace settings the agent reads", error: fail("invalid_persist_flag", "`persist` must be a boolean when provided") })),
    planMode: t.Optional(
      t.Boolean({ description: "Qwen Code: the execution mode after plan (with a non-plan `mode`)", error: fail("invalid_plan_mode", "`planMode` must be a boolean with a non-plan execution mode") }),
    ),
  },
  { additionalProperties: true, error: notAnObject },
);

export const invalidPlanMode = () => new DaemonError(400, "invalid_plan_mode", "`planMode` must be a boolean with a non-plan execution mode");

export const ApprovalModeAnswer = t.Object({
  sessionId: t.String(),
  mode: t.UnionEnum(APPROVAL_MODES, { description: "The approval mode now" }),
  previous: t.Union([t.String({ maxLength: MAX_AGENT_STRING }), t.Null()], { description: "The mode before, when known" }),
  persisted: t.Boolean({ description: "Whether it was written to the workspace settings" }),
});

export const ToolParams = t.Object({ name: name("invalid_tool_name", "The tool name") });
export const SkillParams = t.Object({ name: name("invalid_skill_name", "The skill name") });
export const ServerParams = t.Object({ server: name("invalid_server_name", "The MCP server name") });

export const EnableBody = t.Object({ enabled: enabledFlag }, { additionalProperties: true, error: notAnObject });

export const SkillBatchBody = t.Object(
  {
    skillNames: t.Array(name("invalid_skill_names", "Each skill name"), {
      minItems: 1,
      maxItems: MAX_SKILL_BATCH,
      error: fail("invalid_skill_names", `\`skillNames\` must be a non-empty string array (max ${MAX_SKILL_BATCH})`),
    }),
    enabled: enabledFlag,
  },
  { additionalProperties: true, error: notAnObject },
);

export const ToolToggleAnswer = t.Object({ toolName: t.String(), enabled: t.Boolean() });

const skillOutcome = {
  enabled: t.Boolean({ description: "Whether the skill is enabled now (false when the host's settings disable it, whatever was asked)" }),
  changed: t.Boolean({ description: "Whether the settings changed" }),
  disabledByHost: t.Optional(t.Literal(true, { description: "The daemon host's settings disable it (built-in agent): a workspace write cannot enable it" })),
};
const activation = {
  activation: t.Union([t.Literal("applied"), t.Literal("partial")], { description: "`partial`: some sessions failed to refresh" }),
  sessionsRefreshed: Type.Integer({ minimum: 0 }),
  sessionsFailed: Type.Integer({ minimum: 0 }),
};

export const SkillToggleAnswer = t.Object({ skillName: t.String(), ...skillOutcome, ...activation });
export const SkillBatchAnswer = t.Object({ enabled: t.Boolean(), ...activation, results: t.Array(t.Object({ skillName: t.String(), ...skillOutcome })) });

export const InitBody = t.Object(
  { force: t.Optional(t.Boolean({ description: "Empty a context file that has content", error: fail("invalid_force_flag", "`force` must be a boolean when provided") })) },
  { additionalProperties: true, error: notAnObject },
);

export const InitAnswer = t.Object({
  path: t.String({ description: "The context file's absolute path" }),
  action: t.Union([t.Literal("created"), t.Literal("overwrote"), t.Literal("noop")]),
});

const reconnectWhich = fail("invalid_force_reconnect_which", "`forceReconnectWhich` must be an array of server names");

export const McpReloadBody = t.Object(
  {
    forceReconnectAll: t.Optional(t.Boolean({ error: fail("invalid_force_reconnect_all_flag", "`forceReconnectAll` must be a boolean") })),
    forceReconnectWhich: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, error: reconnectWhich }), { maxItems: 1024, error: reconnectWhich }),
    ),
  },
  { additionalProperties: true, error: notAnObject },
);

export const conflictingReload = () =>
  new DaemonError(400, "conflicting_force_reconnect_options", "`forceReconnectAll` and `forceReconnectWhich` cannot be used together");

/** The agent's answer to a reload, rebuilt: `{accepted}`. */
export const McpReloadAnswer = t.Object({ accepted: t.Boolean({ description: "The agent took the reload on" }) }, { additionalProperties: false });

export const RestartQuery = t.Object({
  entryIndex: t.Optional(
    t.String({
      pattern: "^(\\*|0|[1-9][0-9]{0,8})$",
      description: "One pooled entry by index, or `*` for every entry",
      error: fail("invalid_entry_index", '`entryIndex` query parameter must be a non-negative integer or "*"'),
    }),
  ),
});

const restartReason = t.String({ maxLength: MAX_AGENT_STRING, description: "Why it was not restarted (`budget_would_exceed`, `in_flight`, `disabled`, … or the pooled entry's failure)" });
const durationMs = Type.Integer({ minimum: 0, description: "How long the restart took" });

/**
 * The agent's restart answer, rebuilt from its known fields: `{serverName, restarted, durationMs?}`,
 * a refusal `{serverName, restarted: false, skipped, reason}`, or `{serverName, entries[]}` of a pool.
 */
export const RestartAnswer = t.Object(
  {
    serverName: t.String({ description: "The server asked for" }),
    restarted: t.Optional(t.Boolean()),
    durationMs: t.Optional(durationMs),
    skipped: t.Optional(t.Boolean({ description: "The agent refused to try" })),
    reason: t.Optional(restartReason),
    entries: t.Optional(
      t.Array(
        t.Object(
          { entryIndex: Type.Integer({ minimum: 0 }), restarted: t.Boolean(), durationMs: t.Optional(durationMs), reason: t.Optional(restartReason) },
          { additionalProperties: false, description: "One pooled entry's outcome" },
        ),
        { maxItems: MAX_RESTART_ENTRIES },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A runtime MCP server's name: the names the built-in agent reads (`SERVER_NAME_PATTERN`). */
const runtimeServerName = t.String({
  pattern: SERVER_NAME_PATTERN,
  description: "The server name: 1 to 32 letters, digits, `_` or `-`",
  error: fail("invalid_server_name", "Server name must be 1 to 32 letters, digits, underscores or hyphens, and not __proto__, constructor or prototype"),
});

export const RuntimeServerParams = t.Object({ name: runtimeServerName });

export const RuntimeAddBody = t.Object(
  {
    name: runtimeServerName,
    config: t.Record(
      t.String(),
      t.Unknown(),
      {
        description: "`{command, args?, description?}` (an absolute command) or `{url | httpUrl, description?}`; no `env`, `cwd` or `headers`",
        error: fail("missing_required_field", "`config` must be a non-null object", { field: "config" }),
      },
    ),
  },
  { additionalProperties: true, error: notAnObject },
);

const skippedFields = {
  name: t.String(),
  skipped: t.Literal(true),
  reason: t.String({ maxLength: MAX_AGENT_STRING, description: "`budget_warning_only` (past a warn budget), `not_present` (nothing to remove), …" }),
};

export const RuntimeAddAnswer = t.Union([
  t.Object({
    name: t.String(),
    transport: t.String({ maxLength: MAX_AGENT_STRING, description: "`stdio` or `http` (the built-in agent); Qwen Code also names `sse`, `websocket`, `sdk`" }),
    replaced: t.Boolean({ description: "A runtime server of the name was replaced" }),
    shadowedSettings: t.Boolean({ description: "It stands over a declared server of the same name" }),
    toolCount: Type.Integer({ minimum: 0 }),
    originatorClientId: t.Optional(t.String({ maxLength: MAX_AGENT_STRING })),
  }),
  t.Object(skippedFields),
]);

export const RuntimeRemoveAnswer = t.Union([
  t.Object({
    name: t.String(),
    removed: t.Literal(true),
    wasShadowingSettings: t.Boolean({ description: "A declared server of the same name takes its place" }),
    originatorClientId: t.Optional(t.String({ maxLength: MAX_AGENT_STRING })),
  }),
  t.Object(skippedFields),
]);
