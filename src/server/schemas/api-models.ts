/**
 * The named schemas of the API: registered once as Elysia models, so a route names one by its key
 * (`response: { 404: ERROR_BODY }`) and the OpenAPI document carries it once, under
 * `components.schemas`, with every use a `$ref` to it. Only schemas used whole by several operations
 * are models; the rest stay inline beside their route.
 */
import { Elysia, t } from "elysia";
import { ErrorBody, FsErrorBody } from "./error-body.ts";
import { SessionListReply } from "./session-list.ts";
import { SessionSummary } from "./session-summary.ts";
import { WorkspaceCells } from "./workspace-cells.ts";

export const ERROR_BODY = "ErrorBody";
export const FS_ERROR_BODY = "FsErrorBody";
/** Either error body: a status both a file route and the front door (or body reader) can answer. */
export const FILE_ROUTE_ERROR = "FileRouteError";
export const SESSION_SUMMARY = "SessionSummary";
export const SESSION_LIST_REPLY = "SessionListReply";
export const WORKSPACE_CELLS = "WorkspaceCells";
export const VOTE_ACCEPTED = "VoteAccepted";

export const API_MODELS = {
  [ERROR_BODY]: ErrorBody,
  [FS_ERROR_BODY]: FsErrorBody,
  [FILE_ROUTE_ERROR]: t.Union([FsErrorBody, ErrorBody], { description: "A filesystem error, or a daemon error from the front door or body reader" }),
  [SESSION_SUMMARY]: SessionSummary,
  [SESSION_LIST_REPLY]: SessionListReply,
  [WORKSPACE_CELLS]: WorkspaceCells,
  [VOTE_ACCEPTED]: t.Object({}, { description: "The vote was counted" }),
} as const;

/** The models, registered once, on the root app (`app.ts`), before any route plugin. */
export const apiModels = new Elysia({ name: "schemas/api-models" }).model(API_MODELS);

/**
 * What a route plugin uses so its types know the models' names. It carries no models at run time:
 * the root app re-adds every plugin's routes and resolves the names against its own models, and
 * Elysia rebuilds its model module on each `.use()` of a plugin that carries any (with every route
 * plugin carrying them, a tenth of the core's build went there).
 */
export const apiModelNames = new Elysia({ name: "schemas/api-model-names" }) as unknown as typeof apiModels;
