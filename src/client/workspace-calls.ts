/**
 * The client's workspace registration and runtime-stop calls (spread into `createClient`'s client).
 * Every change needs the daemon's bearer token (the routes are strict). A workspace is named by its
 * id or its absolute path.
 */
import type { SessionListItem } from "./types.ts";
import type {
  ForgottenRegistration,
  RegisterWorkspaceRequest,
  RuntimeStopConfirmation,
  RuntimeStopOptions,
  RuntimeStopPreview,
  RuntimeStopResult,
  WorkspaceRegistration,
  WorkspaceRegistrationList,
  WorkspaceRemoval,
} from "./workspace-types.ts";

type Call = <T>(path: string, o?: { method?: string; body?: unknown }) => Promise<T>;

const enc = encodeURIComponent;

/** The confirmation that submits `preview` as it is (the user saw and accepted exactly these sessions). Throws while no agent runs. */
export function confirmationFor(preview: RuntimeStopPreview): RuntimeStopConfirmation {
  if (preview.channelId === undefined) throw new Error(`workspace ${preview.cwd} has no running agent to stop`);
  return {
    confirmInterruptions: true,
    expectedChannelId: preview.channelId,
    expectedRuntimeEpoch: preview.runtimeEpoch,
    expectedStopToken: preview.stopToken,
    expectedSessionIds: preview.sessions.map((s) => s.sessionId),
  };
}

export function workspaceCalls(call: Call) {
  return {
    /** Registers a workspace (or makes a registered one persistent). */
    registerWorkspace: (request: RegisterWorkspaceRequest) => call<WorkspaceRegistration>("/workspaces", { method: "POST", body: request }),
    /** Sets (or, with null, clears) a workspace's display name. */
    renameWorkspace: (workspace: string, displayName: string | null) =>
      call<WorkspaceRegistration>(`/workspaces/${enc(workspace)}`, { method: "PATCH", body: { displayName } }),
    /**
     * Stops serving a registered workspace; `force` closes its live sessions even while busy. With
     * `expectedSessionIds` (the live sessions the user saw) another set is refused (409 `workspace_sessions_changed`).
     */
    removeWorkspace: (workspace: string, o: { force?: boolean; expectedSessionIds?: string[] } = {}) =>
      call<WorkspaceRemoval>(`/workspaces/${enc(workspace)}`, { method: "DELETE", body: o }),
    /** Every live session of a workspace (memory only: all of them, not a page). */
    liveSessions: (workspace: string) => call<{ v: 1; sessions: SessionListItem[] }>(`/workspaces/${enc(workspace)}/sessions/live-state`),
    /** The persistent registrations of the daemon's primary workspace. */
    workspaceRegistrations: () => call<WorkspaceRegistrationList>("/workspace-registrations"),
    /** Forgets a persistent registration (the workspace stays served until the daemon restarts). */
    forgetWorkspaceRegistration: (id: string) => call<ForgottenRegistration>(`/workspace-registrations/${enc(id)}`, { method: "DELETE" }),
    /** What stopping each workspace's agent would end. */
    runtimeStopOptions: () => call<RuntimeStopOptions>("/workspaces/runtime-stop-options"),
    /** Stops a workspace's agent as previewed (`confirmationFor(preview)`); a stale preview is refused (409). */
    stopWorkspaceRuntime: (workspace: string, confirmation: RuntimeStopConfirmation) =>
      call<RuntimeStopResult>(`/workspaces/${enc(workspace)}/runtime/stop`, { method: "POST", body: confirmation }),
  };
}
