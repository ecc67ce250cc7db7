/** Schemas of the routes the reference daemon's web UI reads for a normal session (`reference-ui.ts`). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { WorkspaceSelector } from "./history-schemas.ts";

/** An array that is always empty: the feature is not offered, and "none" is the truthful answer. */
const none = (description: string) => t.Array(t.Never(), { maxItems: 0, description });

export const BrandReply = t.Object(
  { name: t.String({ description: "the product name the UI shows" }), version: t.String({ description: "the daemon's version" }) },
  { description: "How the web UI names the daemon it talks to" },
);

const SettingOption = t.Object({ value: t.String(), label: t.String() });
const SettingEntry = t.Object({
  key: t.String({ description: "dotted settings key, as in `$SVC_HOME/settings.json`" }),
  type: t.Union([t.Literal("boolean"), t.Literal("integer"), t.Literal("enum")]),
  label: t.String(),
  category: t.String(),
  description: t.String(),
  requiresRestart: t.Boolean(),
  default: t.Optional(t.Unknown()),
  options: t.Optional(t.Array(SettingOption)),
  values: t.Object({ effective: t.Optional(t.Unknown({ description: "the value in force; absent when unset and without a default" })) }),
});
export const SettingsReply = t.Object(
  { v: t.Literal(1), settings: t.Array(SettingEntry) },
  { description: "The daemon's own effective settings; never keys, environment values or MCP server definitions" },
);

const ModelConfiguration = t.Object({
  key: t.String({ description: "64 hex digits naming the configuration" }),
  authType: t.String(),
  modelId: t.String(),
  contextWindowSize: t.Optional(Type.Integer({ minimum: 1 })),
  canEditContextWindow: t.Boolean(),
  purpose: t.String(),
});
export const ModelsReply = t.Object(
  { models: t.Array(ModelConfiguration, { maxItems: 0, description: "Model configurations of the settings (`modelProviders`): this daemon has none to edit, so the list is empty" }) },
  { description: "Editable model configurations (models are switched per session with `POST /session/:id/model`)" },
);

export const MODELS_PATCH_INVALID = "Invalid model key or context window size";
const invalidPatch = () => new DaemonError(400, null, MODELS_PATCH_INVALID).body();
export const ModelsPatchBody = t.Object(
  {
    key: t.String({ pattern: "^[a-f0-9]{64}$", description: "`key` of a configuration from `GET /workspace/models`", error: invalidPatch }),
    contextWindowSize: t.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), t.Null()], { description: "new context window, or null to clear it", error: invalidPatch }),
  },
  { additionalProperties: true, error: invalidPatch },
);

/** The reference's answer to a change it made; this daemon lists no configuration, so it answers 409 instead. */
export const ModelsPatchReply = t.Object(
  { updated: t.Literal(true), requiresRestart: t.Boolean() },
  { description: "A configuration listed by GET /workspace/models was changed (never, in this daemon: it lists none)" },
);

export const GoalsReply = t.Object({ v: t.Literal(1), goals: none("session goals (not offered by this daemon)"), droppedCount: Type.Integer({ minimum: 0, maximum: 0 }) });
export const SessionGoalReply = t.Object({
  snapshot: t.Object({ v: t.Literal(2), goal: t.Null({ description: "no goal: this daemon does not offer goals" }), activity: t.Literal("idle") }),
});
export const ScheduledTasksReply = t.Object({ v: t.Literal(1), tasks: none("scheduled tasks (not offered by this daemon)") });
export const WorkspaceExtensionsReply = t.Object({
  v: t.Literal(1),
  workspaceId: t.String(),
  workspaceCwd: t.String(),
  trusted: t.Boolean(),
  desiredGeneration: t.Literal(0),
  appliedGeneration: t.Literal(0),
  extensions: t.Array(
    t.Object({
      extensionId: t.String(),
      name: t.String(),
      version: t.String(),
      defaultActivation: t.UnionEnum(["enabled", "disabled"]),
      workspaceActivation: t.Null({ description: "no per-workspace override: an extension's state holds in every workspace" }),
      effectiveActivation: t.UnionEnum(["enabled", "disabled"]),
      activationSource: t.Literal("default"),
    }),
    { description: "the installed extensions and their state in this workspace" },
  ),
});

export const WorkspaceParams = t.Object({ workspace: WorkspaceSelector });
