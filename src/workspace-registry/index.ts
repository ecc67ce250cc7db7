/**
 * The workspace registry (this folder's one entry seam): the scopes routes resolve
 * (`workspace-scope.ts`), registration of further workspaces (`registrations.ts`, its path and name
 * rules in `registration-path.ts` and `display-name.ts`) and runtime stop (`runtime-stop.ts`).
 * Loaded with the daemon's core, never by the front door.
 */
import type { Config } from "../config/config.ts";
import type { Logger } from "../logging/logger.ts";
import type { RuntimeRegistry } from "../sessions/runtime-registry.ts";
import type { SessionManager } from "../sessions/session-manager.ts";
import { WorkspaceRegistrations } from "./registrations.ts";
import { RuntimeStops } from "./runtime-stop.ts";

export { MAX_DISPLAY_NAME_LENGTH } from "./display-name.ts";
export { MAX_PATH_LENGTH } from "./registration-path.ts";
export type { RegistrationEntry, RemovalReceipt, WorkspaceActivity, WorkspaceView } from "./registrations.ts";
export type { StopConfirmation, StopPreview, StopReceipt } from "./runtime-stop.ts";
export type { ManagedScope, WorkspaceScope, WorkspaceScopes } from "./workspace-scope.ts";
export { RuntimeStops, WorkspaceRegistrations };

export interface WorkspaceServices {
  readonly registrations: WorkspaceRegistrations;
  readonly stops: RuntimeStops;
}

/** The registration and runtime-stop services over the daemon's runtimes and sessions (the store is the sessions'). */
export function workspaceServices(deps: { config: Config; logger: Logger; runtimes: RuntimeRegistry; sessions: SessionManager }): WorkspaceServices {
  const registrations = new WorkspaceRegistrations({ ...deps, store: deps.sessions.store });
  return { registrations, stops: new RuntimeStops({ ...deps, registrations }) };
}
