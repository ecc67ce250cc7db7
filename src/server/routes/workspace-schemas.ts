/** Request and response schemas of the workspace registration and runtime-stop routes (`workspaces.ts`, `runtime-stop.ts`). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { MAX_DISPLAY_NAME_LENGTH, MAX_PATH_LENGTH } from "../../workspace-registry/index.ts";
import { notAnObject } from "./session-params.ts";

const bodyError = (code: string, message: string) => () => new DaemonError(400, code, message).body();

/** `POST /workspaces`. Members are checked by the registry (codes `invalid_path`, `invalid_persist_flag`, `invalid_display_name`). */
export const RegisterBody = t.Object(
  {
    cwd: t.Optional(t.Unknown({ description: `absolute path of an existing readable directory (at most ${MAX_PATH_LENGTH} characters), canonicalized` })),
    displayName: t.Optional(t.Unknown({ description: `string, trimmed, at most ${MAX_DISPLAY_NAME_LENGTH} characters, no control characters; blank: none` })),
    persist: t.Optional(t.Unknown({ description: "boolean (default false): keep the registration in svc.db, served again after a restart" })),
  },
  { additionalProperties: true, error: notAnObject },
);

/** `PATCH /workspaces/:workspace`: `displayName` only (null: none); any other member is 400 `unsupported_field`. */
export const UpdateBody = t.Record(t.String(), t.Unknown(), { description: "`{displayName: string | null}`", error: notAnObject });

/** `DELETE /workspaces/:workspace` (the body is optional). */
export const RemoveBody = t.Optional(
  t.Object(
    {
      force: t.Optional(t.Boolean({ description: "close live sessions and remove even while the workspace is busy", error: bodyError("invalid_force_flag", "`force` must be a boolean when provided") })),
      expectedSessionIds: t.Optional(
        t.Array(t.String({ maxLength: 512 }), {
          uniqueItems: true,
          maxItems: 100_000,
          description: "svc: the live sessions the user confirmed would close; another set (or a session start under way) is 409 `workspace_sessions_changed`, nothing removed",
          error: bodyError("invalid_expected_sessions", "`expectedSessionIds` must be an array of distinct session ids when provided"),
        }),
      ),
    },
    { additionalProperties: true, error: notAnObject },
  ),
);

export const WorkspaceView = t.Object({
  id: t.String({ description: "workspace id: 16 hex digits of SHA-256 over the canonical path" }),
  cwd: t.String({ description: "canonical path" }),
  displayName: t.Optional(t.String()),
  primary: t.Boolean(),
  trusted: t.Boolean(),
  persisted: t.Optional(t.Literal(true)),
  removable: t.Optional(t.Boolean()),
});

export const Activity = t.Object({ sessions: Type.Integer(), activePrompts: Type.Integer(), pendingSessionStarts: Type.Integer() });

export const RemovalReceipt = t.Object({
  removed: t.Literal(true),
  workspaceId: t.String(),
  workspaceCwd: t.String(),
  forced: t.Boolean(),
  persistedRegistrationRemoved: t.Boolean(),
  activity: Activity,
  closedSessionIds: t.Array(t.String(), { description: "live sessions closed (each stays persisted, its history readable)" }),
});

export const RegistrationList = t.Object({
  schemaVersion: t.Literal(1),
  primaryWorkspace: t.String(),
  entries: t.Array(t.Object({ id: t.String(), cwd: t.String(), displayName: t.Optional(t.String()), active: t.Boolean(), persisted: t.Literal(true) })),
});

export const ForgetAnswer = t.Object({ removed: t.Literal(true), active: t.Boolean(), restartRequired: t.Boolean({ description: "the workspace stays served (not persisted) until it is removed or the daemon restarts" }) });

export const RegistrationIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 128 }) });

const invalidConfirmation = bodyError("invalid_runtime_stop_confirmation", "Confirm the exact workspace and affected sessions before stopping.");

/** `POST /workspaces/:workspace/runtime/stop`: the preview being confirmed. */
export const StopBody = t.Object(
  {
    confirmInterruptions: t.Literal(true, { error: invalidConfirmation }),
    expectedChannelId: t.String({ maxLength: 128, error: invalidConfirmation }),
    expectedRuntimeEpoch: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, error: invalidConfirmation }),
    expectedStopToken: t.String({ maxLength: 128, error: invalidConfirmation }),
    expectedSessionIds: t.Array(t.String({ maxLength: 512 }), { uniqueItems: true, maxItems: 100_000, error: invalidConfirmation }),
  },
  { additionalProperties: true, error: invalidConfirmation },
);

const StopReceiptFields = {
  channelId: t.String(),
  runtimeEpoch: Type.Integer(),
  stopToken: t.String(),
  state: t.Literal("stopped"),
  stopped: t.Boolean(),
  released: t.Boolean({ description: "the child is gone: the release signal" }),
  affectedSessionIds: t.Array(t.String()),
  closedSessionIds: t.Array(t.String()),
  interruptedSessionIds: t.Array(t.String()),
  remainingSessionIds: t.Array(t.String()),
  error: t.Optional(t.String()),
};

const Capacity = {
  committedAcpChildren: Type.Integer({ description: "agent children running now" }),
  maxConcurrentChildren: Type.Integer({ description: "at most one per workspace served (`--max-workspaces`)" }),
};

export const StopPreview = t.Object({
  workspaceId: t.String(),
  cwd: t.String(),
  displayName: t.Optional(t.String()),
  primary: t.Boolean(),
  state: t.Union([t.Literal("cold"), t.Literal("starting"), t.Literal("idle"), t.Literal("active"), t.Literal("stopping")]),
  canStop: t.Boolean(),
  activity: Activity,
  runtimeEpoch: Type.Integer({ description: "how many children this workspace has started" }),
  stopToken: t.String({ description: "one-time: spent by the stop it confirms" }),
  sessions: t.Array(t.Object({ sessionId: t.String(), displayName: t.Optional(t.String()), hasActivePrompt: t.Boolean(), queuedPrompts: Type.Integer(), isWaitingForPermission: t.Boolean() })),
  channelId: t.Optional(t.String({ description: "the live child's channel; absent while none runs" })),
  blockedReasons: t.Array(t.String({ description: "`not_live`, `session_start_pending`, `stopping`, `untrusted`" })),
  lastStop: t.Optional(t.Object(StopReceiptFields)),
});

export const StopOptions = t.Object({ ...Capacity, workspaces: t.Array(StopPreview) });

export const StopReceipt = t.Object({ ...StopReceiptFields, workspaceId: t.String(), ...Capacity });
