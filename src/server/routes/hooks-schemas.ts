/**
 * Schemas of the hook routes: `GET /workspace/hooks` (and its qualified form), `GET|POST
 * /session/:id/hooks`, `DELETE /session/:id/hooks/:hookId`. A hook shows as its event, matcher,
 * source and state, never its command (spec "Status payloads never carry … hook definitions"):
 * the objects are closed, so normalisation drops anything `status-redact.ts` did not let through.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { HOOK_EVENTS, MAX_HOOK_COMMAND_CHARS, MAX_HOOK_MATCHER_CHARS, MAX_HOOK_NAME_CHARS, MAX_HOOK_TIMEOUT_SECONDS } from "../../config/hooks-config.ts";
import { StatusCell } from "../schemas/workspace-cells.ts";

export const HookCell = t.Object({
  kind: t.Literal("hook"),
  eventName: t.Optional(t.String({ description: "PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, SessionEnd (other agents may name more)" })),
  config: t.Object({
    type: t.Optional(t.String({ description: "command" })),
    name: t.Optional(t.String()),
    description: t.Optional(t.String()),
    timeout: t.Optional(Type.Integer({ description: "seconds" })),
  }),
  source: t.Optional(t.String({ description: "user (the data dir's settings), project (the workspace's), session (added through the API)" })),
  matcher: t.Optional(t.String({ description: "tool names separated by |, * a wildcard; absent: every tool" })),
  sequential: t.Optional(t.Boolean()),
  enabled: t.Boolean(),
  disabledReason: t.Optional(t.String({ description: "untrusted_workspace (a project hook of an untrusted folder) or all_hooks_disabled" })),
  hookId: t.Optional(t.String({ description: "session hooks: the id DELETE takes" })),
});

const HookEventInfo = t.Object({ description: t.Optional(t.String()), matcherKind: t.Optional(t.String()) });

export const HooksSnapshot = t.Object({
  v: t.Literal(1),
  workspaceCwd: t.String(),
  initialized: t.Boolean({ description: "false while no agent child is live: the snapshot is empty then" }),
  errors: t.Optional(t.Array(StatusCell)),
  disabled: t.Boolean({ description: "disableAllHooks is set: no hook runs" }),
  hooks: t.Array(HookCell),
  events: t.Optional(t.Record(t.String(), HookEventInfo, { description: "the events hooks can be attached to" })),
});

export const SessionHooksReply = t.Object({
  v: t.Literal(1),
  sessionId: t.String(),
  workspaceCwd: t.String(),
  disabled: t.Boolean(),
  hooks: t.Array(HookCell),
  errors: t.Optional(t.Array(StatusCell)),
});

export const AddHookBody = t.Object(
  {
    eventName: t.Union(HOOK_EVENTS.map((e) => t.Literal(e))),
    matcher: t.Optional(t.String({ maxLength: MAX_HOOK_MATCHER_CHARS, description: "tool events: tool names separated by |, * a wildcard" })),
    type: t.Optional(t.Literal("command")),
    command: t.String({ minLength: 1, maxLength: MAX_HOOK_COMMAND_CHARS, description: "run with /bin/sh -c in the workspace; the event's JSON on stdin" }),
    timeout: t.Optional(Type.Integer({ minimum: 1, maximum: MAX_HOOK_TIMEOUT_SECONDS, description: "seconds (default 60)" })),
    name: t.Optional(t.String({ maxLength: MAX_HOOK_NAME_CHARS })),
    description: t.Optional(t.String({ maxLength: MAX_HOOK_NAME_CHARS })),
  },
  { description: "undeclared members are dropped, as on every body" },
);

export const AddHookReply = t.Object({ v: t.Literal(1), sessionId: t.String(), workspaceCwd: t.String(), hook: HookCell });

export const RemoveHookReply = t.Object({ v: t.Literal(1), sessionId: t.String(), hookId: t.String(), removed: t.Literal(true) });
