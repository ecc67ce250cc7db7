/**
 * What `POST /session` takes and answers: the request as the route hands it to the session manager,
 * and the answer for the session's creator (`welcome`, a new session) or for a client joining the
 * workspace's default session (`attachAnswer`), with the model asked for applied on the way.
 */
import type { LiveSession } from "./live-session.ts";
import { applyModel, type StartupConfig, type StartupConfigRequest } from "./model-selection.ts";
import { sourceFields } from "./session-source.ts";
import { worktreeFields } from "./worktree-seam.ts";

export interface CreateRequest {
  readonly cwd?: string;
  readonly sessionScope?: "single" | "thread";
  readonly modelServiceId?: string;
  readonly startupConfig?: StartupConfigRequest;
  /** Where the session comes from (`session-source.ts`); recorded on a new session only. */
  readonly sourceType?: string;
  readonly sourceId?: string;
  /** Start the session in a fresh git worktree of the workspace (`workspace/worktree/`), named `slug` or a fresh name. */
  readonly worktree?: { readonly slug?: string };
}

export interface CreateResult {
  sessionId: string;
  workspaceCwd: string;
  attached: boolean;
  clientId: string;
  createdAt: string;
  hasActivePrompt?: boolean;
  modelApplied?: boolean;
  startupConfigApplied?: Record<string, unknown>;
  sourceType?: string;
  sourceId?: string;
  sourcePersisted?: boolean;
  worktree?: { slug: string; path: string; branch: string };
  worktreeState?: "persisted-v1";
  currentCwd?: string;
}

/**
 * The answer for a new session's creator (it has no registered client to reuse). `sourcePersisted`:
 * whether the catalog keeps the source (a restart lists it); false while recording is degraded for good.
 */
export async function welcome(session: LiveSession, storesCatalogChanges: boolean, modelServiceId: string | undefined, startup: StartupConfig | null): Promise<CreateResult> {
  const clientId = session.clients.attach(null);
  const result: CreateResult = {
    sessionId: session.id,
    workspaceCwd: session.workspaceCwd,
    attached: false,
    clientId,
    createdAt: new Date(session.createdAt).toISOString(),
    ...sourceFields(session.source),
    ...(session.source === null ? {} : { sourcePersisted: storesCatalogChanges }),
    ...worktreeFields(session.worktree),
  };
  if (modelServiceId !== undefined) result.modelApplied = await applyModel(session, modelServiceId, clientId);
  if (startup) {
    result.modelApplied = true;
    result.startupConfigApplied = startup.applied;
  }
  return result;
}

/** The answer for a client joining a live session (scope `single`): its client id, kept when `clientHeader` names one it holds. */
export async function attachAnswer(session: LiveSession, clientHeader: string | null, modelServiceId: string | undefined): Promise<CreateResult> {
  const clientId = session.clients.attach(clientHeader);
  session.noteActivity();
  const result: CreateResult = {
    sessionId: session.id,
    workspaceCwd: session.workspaceCwd,
    attached: true,
    clientId,
    createdAt: new Date(session.createdAt).toISOString(),
    // The session's own source: a source asked for on an attach is not recorded (the reference's rule).
    ...sourceFields(session.source),
    hasActivePrompt: session.busy,
  };
  if (modelServiceId !== undefined) result.modelApplied = await applyModel(session, modelServiceId, clientId);
  return result;
}
