/**
 * Session lifecycle: create/attach, close, heartbeat, metadata, model switch. Shapes follow
 * spec/protocol-notes.md §2.1–2.5 and §2.18 (close, detach).
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { CLIENT_ID_HEADER, parseClientIdHeader } from "../../sessions/client-ids.ts";
import { checkDisplayName } from "../../sessions/display-name.ts";
import { MAX_SOURCE_ID_LENGTH, SOURCE_ID_RULE, SOURCE_TYPE_PATTERN, SOURCE_TYPE_RULE, invalidSource } from "../../sessions/session-source.ts";
import { REASONING_EFFORTS, switchModel } from "../../sessions/model-selection.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { openObject } from "../schemas/open-object.ts";
import { PullRequest } from "../schemas/session-summary.ts";
import { SessionIdParams, notAnObject, registeredClient, wholeNumber } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

/** Pull-request links kept per session; the oldest is dropped past it. */
const MAX_PRS = 20;

const invalidStartupConfig = (message: string) => () => new DaemonError(400, "invalid_startup_config", message).body();

/**
 * Members it does not define pass the schema (`additionalProperties` is a schema, so normalisation
 * keeps them) and are refused by the handler, naming the first (`checkStartupConfig`).
 */
const StartupConfig = t.Object(
  {
    modelServiceId: t.String({ pattern: "\\S", error: invalidStartupConfig("`startupConfig.modelServiceId` must be a non-empty string") }),
    reasoningEffort: t.Optional(
      t.Union(
        REASONING_EFFORTS.map((effort) => t.Literal(effort)),
        { error: invalidStartupConfig(`\`startupConfig.reasoningEffort\` must be one of ${REASONING_EFFORTS.join(", ")}`) },
      ),
    ),
  },
  {
    additionalProperties: t.Unknown(),
    description: "start a new thread on this model; no other members, and not with `modelServiceId` or `sessionScope: single`",
    error: invalidStartupConfig("`startupConfig` must be an object"),
  },
);

const sourceError = (message: string) => () => invalidSource(message).body();

const invalidWorktree = () => new DaemonError(400, "invalid_worktree", '`worktree` must be an object (e.g. `{}` or `{"slug":"my-task"}`) whose `slug`, when given, is a string').body();

/** `worktree: {slug?}`: start the session in a fresh git worktree (null: as if absent; slug null: a fresh name). */
const WorktreeRequest = t.Union(
  [t.Null(), t.Object({ slug: t.Optional(t.Union([t.Null(), t.String({ maxLength: 4096 })])) }, { additionalProperties: true })],
  { error: invalidWorktree, description: "start the session in a fresh git worktree of the workspace, at `.qwen/worktrees/<slug>` on branch `worktree-<slug>` (a new thread)" },
);

const WorktreeAnswer = t.Object({ slug: t.String(), path: t.String(), branch: t.String() }, { description: "the session's git worktree: its name, canonical checkout path and branch" });

const CreateBody = t.Object(
  {
    cwd: t.Optional(t.String({ maxLength: 4096 })),
    sessionScope: t.Optional(
      t.Union([t.Literal("single"), t.Literal("thread")], {
        description: "`single` (default): the workspace's shared session; `thread`: a new one",
        error: ({ found }) =>
          new DaemonError(400, "invalid_session_scope", "`sessionScope` must be `single` or `thread`", { sessionScope: (found as { sessionScope?: unknown }).sessionScope }).body(),
      }),
    ),
    modelServiceId: t.Optional(t.String({ minLength: 1, maxLength: 512 })),
    startupConfig: t.Optional(StartupConfig),
    sourceType: t.Optional(t.String({ pattern: SOURCE_TYPE_PATTERN, description: "where the session comes from (recorded on a new session; an attach answers the session's own)", error: sourceError(SOURCE_TYPE_RULE) })),
    sourceId: t.Optional(
      t.String({ minLength: 1, maxLength: MAX_SOURCE_ID_LENGTH, description: "the source's own id, within `sourceType` (no control characters)", error: sourceError(SOURCE_ID_RULE) }),
    ),
    worktree: t.Optional(WorktreeRequest),
    branch: t.Optional(t.Unknown({ description: "the reference's branch session (`{name}`, a new branch checked out in the shared workspace): not offered by svc, 501 `branch_session_unsupported`; with `worktree`, 400 `branch_and_worktree_conflict`" })),
  },
  { additionalProperties: true, error: notAnObject },
);

const invalidMetadata = (field: string, message: string) => new DaemonError(400, "invalid_metadata", message, { field });
/** A schema `error` answering 400 `invalid_metadata` for `field`. */
const metadataError = (field: string, message: string) => () => invalidMetadata(field, message).body();

const PR_NUMBER = "`pr.number` must be a whole number of at least 1";
const PR_URL = "`pr.url` must be an http(s) URL of at most 2048 characters";
const PR_STATE = "`pr.state` must be open, merged or closed";
const DISPLAY_NAME = "`displayName` must be a non-empty string";

const MetadataBody = t.Object(
  {
    displayName: t.Optional(t.String({ error: metadataError("displayName", DISPLAY_NAME) })),
    pr: t.Optional(
      t.Object(
        {
          number: wholeNumber({ minimum: 1, error: metadataError("pr", PR_NUMBER) }),
          url: t.String({ maxLength: 2048, pattern: "^[Hh][Tt][Tt][Pp][Ss]?://", error: metadataError("pr", PR_URL) }),
          state: t.Optional(t.Union([t.Literal("open"), t.Literal("merged"), t.Literal("closed")], { error: metadataError("pr", PR_STATE) })),
        },
        { error: metadataError("pr", "`pr` must be an object with `number` and `url`") },
      ),
    ),
    autoTitle: t.Optional(t.Boolean({ description: "false: no automatic title for this session (setting `ui.autoTitle`)", error: metadataError("autoTitle", "`autoTitle` must be a boolean") })),
  },
  { additionalProperties: true, error: notAnObject },
);

const NAME_PROBLEMS = {
  empty: DISPLAY_NAME,
  unsafe_characters: "`displayName` must not contain control, line-separator or bidirectional-formatting characters",
  malformed: "`displayName` must be well-formed Unicode (no lone surrogates)",
} as const;

const MODEL_ID = "`modelId` is required and must be a non-empty string";
const modelIdError = () => new DaemonError(400, null, MODEL_ID).body();
const ModelBody = t.Object({ modelId: t.String({ minLength: 1, maxLength: 512, pattern: "\\S", error: modelIdError }) }, { additionalProperties: true, error: modelIdError });

const CreateResponse = t.Object({
  sessionId: t.String(),
  workspaceCwd: t.String(),
  attached: t.Boolean(),
  clientId: t.String(),
  createdAt: t.String(),
  hasActivePrompt: t.Optional(t.Boolean()),
  modelApplied: t.Optional(t.Boolean()),
  startupConfigApplied: t.Optional(t.Record(t.String(), t.Unknown())),
  sourceType: t.Optional(t.String({ description: "the session's source, when it has one" })),
  sourceId: t.Optional(t.String()),
  sourcePersisted: t.Optional(t.Boolean({ description: "on a new session with a source: whether the session catalog keeps it" })),
  worktree: t.Optional(WorktreeAnswer),
  worktreeState: t.Optional(t.Literal("persisted-v1", { description: "with `worktree`: the catalog keeps it (list, info and a restore after a restart have it)" })),
  currentCwd: t.Optional(t.String({ description: "with `worktree`: the directory the session works in (its checkout)" })),
});

const HeartbeatAnswer = t.Object({ sessionId: t.String(), clientId: t.Optional(t.String()), lastSeenAt: t.Number({ description: "epoch milliseconds" }) });

const MetadataAnswer = t.Object({
  sessionId: t.String(),
  displayName: t.Optional(t.String()),
  prs: t.Optional(t.Array(PullRequest)),
  autoTitle: t.Optional(t.Literal(false, { description: "present when automatic titles are off for this session" })),
  persisted: t.Optional(
    t.Literal(false, {
      description:
        "Present when the change holds for the live session only: recording is degraded for the daemon's life (see `/daemon/status`) or the daemon keeps no history, so the session catalog does not have it",
    }),
  ),
});

/** The agent's answer to the switch (e.g. `configOptions`), with the session and model. */
const ModelAnswer = openObject({ sessionId: t.String(), modelId: t.String() });

/** A session route's own errors beyond the front door's: 404 unknown session, and the agent's. */
const agentErrors = [404, 502, 504] as const;

export const sessionRoutes = (app: RouteApp, deps: AppDeps) =>
  app
    .post(
      "/session",
      async ({ body, request }) => {
        const clientHeader = parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER));
        const { worktree, branch, ...rest } = body;
        if (branch !== undefined && branch !== null) {
          if (worktree !== undefined && worktree !== null) throw new DaemonError(400, "branch_and_worktree_conflict", "`branch` and `worktree` are mutually exclusive");
          throw new DaemonError(501, "branch_session_unsupported", "svc does not check out a new branch in the shared workspace; start the session in a worktree (`worktree`) instead");
        }
        const inWorktree = worktree === undefined || worktree === null ? {} : { worktree: worktree.slug === undefined || worktree.slug === null ? {} : { slug: worktree.slug } };
        return await deps.sessions.create({ ...rest, ...inWorktree }, clientHeader);
      },
      {
        headers: ClientIdHeaders,
        body: CreateBody,
        response: { 200: CreateResponse, ...errorResponses({ body: true, also: [409, 422, 500, 501, 502, 504] }) },
        detail: capability(["session_create", "session_scope_override", "session_startup_config", "client_identity", "session_source_metadata"], {
          summary: "Create a session, or attach to the workspace's default one",
        }),
      },
    )
    .delete(
      "/session/:id",
      async ({ params, request, set }) => {
        const session = deps.sessions.closable(params.id);
        const clientId = registeredClient(session, request);
        await deps.sessions.close(session.id, "client_close", clientId ?? undefined);
        set.status = 204;
        return null;
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        response: { 204: t.Null({ description: "closed" }), ...errorResponses({ also: [404, 409] }) },
        detail: capability("session_close", { summary: "Close a live session (204)" }),
      },
    )
    .post(
      "/session/:id/detach",
      async ({ params, request, set }) => {
        await deps.sessions.detach(params.id, parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER)));
        set.status = 204;
        return null;
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        response: { 204: t.Null({ description: "detached (also for an id or session that is not there)" }), ...errorResponses() },
        detail: capability("client_identity", {
          summary: "Release this client's id; a session left with no client, stream or work is closed (204)",
        }),
      },
    )
    .post(
      "/session/:id/heartbeat",
      ({ params, request }) => deps.sessions.heartbeat(params.id, parseClientIdHeader(request.headers.get(CLIENT_ID_HEADER))),
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        response: { 200: HeartbeatAnswer, ...errorResponses({ also: [404] }) },
        detail: capability("client_heartbeat", { summary: "Defer the idle reaper" }),
      },
    )
    .patch(
      "/session/:id/metadata",
      ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const changed: Record<string, unknown> = {};
        // Every check comes before the first change: a refused body changes nothing.
        const name = body.displayName === undefined ? null : checkDisplayName(body.displayName);
        if (name && "problem" in name) throw invalidMetadata("displayName", NAME_PROBLEMS[name.problem]);
        if (body.pr && !URL.canParse(body.pr.url)) throw invalidMetadata("pr", PR_URL);
        if (name) {
          session.metadata.displayName = name.name;
          session.metadata.titleSource = "manual";
          Object.assign(changed, { displayName: name.name, titleSource: "manual" });
        }
        if (body.autoTitle !== undefined) session.metadata.autoTitle = body.autoTitle;
        if (body.pr) {
          const { number, url, state } = body.pr;
          const pr = { number, url, ...(state === undefined ? {} : { state }) };
          const prs = (session.metadata.prs ?? []).filter((p) => p.number !== pr.number);
          prs.push(pr);
          session.metadata.prs = prs.slice(-MAX_PRS);
          changed.prs = session.metadata.prs;
        }
        if (Object.keys(changed).length > 0)
          session.publish("session_metadata_updated", { sessionId: session.id, ...changed }, clientId ? { originatorClientId: clientId } : {});
        return {
          sessionId: session.id,
          ...(session.metadata.displayName !== undefined ? { displayName: session.metadata.displayName } : {}),
          ...(session.metadata.prs ? { prs: session.metadata.prs } : {}),
          ...(session.metadata.autoTitle === false ? { autoTitle: false } : {}),
          // The live change stands either way; the answer does not claim a catalog write that did not happen.
          ...((deps.sessions.store?.storesCatalogChanges ?? false) ? {} : { persisted: false as const }),
        };
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: MetadataBody,
        response: { 200: MetadataAnswer, ...errorResponses({ body: true, also: [404] }) },
        detail: capability("session_metadata", { summary: "Set the display name or a pull-request link" }),
      },
    )
    .post(
      "/session/:id/model",
      async ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const { modelId } = body;
        const result = await switchModel(session, modelId, clientId);
        return { ...result, sessionId: session.id, modelId };
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: ModelBody,
        response: { 200: ModelAnswer, ...errorResponses({ body: true, also: agentErrors }) },
        detail: capability("session_set_model", { summary: "Switch the session's model" }),
      },
    );
