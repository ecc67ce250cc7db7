/**
 * Request and answer schemas of the trust routes (`trust.ts`). Field checks answer the reference
 * daemon's codes (`invalid_desired_state`, `invalid_reason`); unknown members of a body are ignored,
 * as the reference ignores them.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { notAnObject } from "./session-params.ts";

/** Longest `reason` taken, in characters (the reference's bound). */
export const MAX_TRUST_REASON_LENGTH = 1024;

const fail = (code: string, message: string) => () => new DaemonError(400, code, message).body();

const state = (description: string) => t.Union([t.Literal("trusted"), t.Literal("untrusted")], { description });

export const TrustRequestBody = t.Object(
  {
    desiredState: t.Union([t.Literal("trusted"), t.Literal("untrusted")], {
      description: "What the user decided for the bound workspace",
      error: fail("invalid_desired_state", 'desiredState must be "trusted" or "untrusted"'),
    }),
    reason: t.Optional(
      t.String({
        maxLength: MAX_TRUST_REASON_LENGTH,
        description: "Why, for the other clients (carried in the `trust_change_requested` event)",
        error: fail("invalid_reason", `reason must be a string up to ${MAX_TRUST_REASON_LENGTH} characters`),
      }),
    ),
  },
  { additionalProperties: true, error: notAnObject },
);

const source = (description?: string) =>
  t.Union([t.Literal("disabled"), t.Literal("flag"), t.Literal("damaged"), t.Literal("file"), t.Literal("settings"), t.Literal("none")], description ? { description } : {});

const IgnoredSetting = t.Object(
  {
    key: t.String({ description: "The settings key (`tools.approvalMode`, `tools.disabled`, `mcpServers`, `hooks`, `model.providers`, …)" }),
    reason: t.Union([t.Literal("yolo_host_only"), t.Literal("untrusted_workspace"), t.Literal("approval_mode_flag"), t.Literal("host_only")], {
      description: "`yolo_host_only`: yolo comes only from the host settings or --approval-mode; `untrusted_workspace`: an untrusted workspace may only narrow; `approval_mode_flag`: --approval-mode wins; `host_only`: read from the host settings only",
    }),
    message: t.String({ description: "What was asked and why it is not applied, in one sentence" }),
  },
  { additionalProperties: false },
);

export const TrustStatus = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: t.String(),
    folderTrustEnabled: t.Boolean({ description: "False only when the host settings opted out (security.folderTrust.enabled: false): every folder is trusted" }),
    effective: t.Object(
      {
        state: state("Whether the workspace is trusted now"),
        source: source("`disabled` (opted out), `flag` (--trust-workspace), `damaged` (the trust store cannot be read: untrusted), `file` (the trust store), `settings` (trustedFolders), `none` (no decision: untrusted)"),
      },
      { additionalProperties: false },
    ),
    explicitTrustLevel: t.Union([t.Literal("TRUST_FOLDER"), t.Literal("DO_NOT_TRUST"), t.Null()], { description: "The trust store's entry covering the workspace" }),
    requiresDaemonRestartForChanges: t.Boolean({ description: "False: a decision counts at once" }),
    decidedBy: t.Union([t.String(), t.Null()], { description: "The folder whose decision counts (trust store or trustedFolders)" }),
    ignoredSettings: t.Array(t.String(), { description: "The keys of what the workspace's .svc/settings.json asks for that is not applied (built-in agent), e.g. `tools.approvalMode`" }),
    ignoredSettingDetails: t.Array(IgnoredSetting, { description: "The same, each with its reason and a sentence saying what was asked and why it is not applied" }),
    storeProblem: t.Optional(t.String({ description: "Why the trust store cannot be used" })),
    hint: t.Optional(t.String({ description: "How to trust the workspace, while it is not" })),
  },
  { additionalProperties: false },
);

export const TrustRequestAnswer = t.Object(
  {
    accepted: t.Boolean({ description: "True: svc applied the decision (the reference only forwards it to an operator)" }),
    desiredState: state("The decision asked for"),
    requiresOperatorAction: t.Boolean({ description: "False: nothing more to do" }),
    effective: t.Object({ state: state("Whether the workspace is trusted now"), source: source() }, { additionalProperties: false }),
    persisted: t.Boolean({ description: "Written to the trust store (<data dir>/trust.json)" }),
    agent: t.Union(
      [t.Literal("applied"), t.Literal("not_running"), t.Literal("not_applicable"), t.Literal("stopped"), t.Literal("next_start"), t.Literal("unchanged")],
      {
        description:
          "The live agent: `applied` (the built-in agent took it at once; a revocation switched its wider sessions to default), `not_running` (the next agent starts with it), `not_applicable` (not the built-in agent; it keeps its own trust settings), `stopped` (it did not take a revocation and was stopped), `next_start` (it did not take a grant; its next start will), `unchanged` (the trust state did not change)",
      },
    ),
  },
  { additionalProperties: false },
);
