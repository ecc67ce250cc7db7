/** Types of the workspace registration and runtime-stop calls (`workspace-calls.ts`); shapes of `src/server/routes/workspace-schemas.ts`. */

/** A workspace the daemon serves, as registration answers it. */
export interface WorkspaceRegistration {
  /** 16 hex digits of SHA-256 over the canonical path. */
  id: string;
  /** Canonical path. */
  cwd: string;
  displayName?: string;
  primary: boolean;
  trusted: boolean;
  /** Present on a persistent registration. */
  persisted?: true;
  removable?: boolean;
}

export interface RegisterWorkspaceRequest {
  /** Absolute path of an existing readable directory. */
  cwd: string;
  displayName?: string;
  /** Keep it in the daemon's database: served again after a restart. */
  persist?: boolean;
}

export interface WorkspaceActivity {
  sessions: number;
  activePrompts: number;
  pendingSessionStarts: number;
}

export interface WorkspaceRemoval {
  removed: true;
  workspaceId: string;
  workspaceCwd: string;
  forced: boolean;
  persistedRegistrationRemoved: boolean;
  activity: WorkspaceActivity;
  /** Live sessions closed by the removal (each stays persisted). */
  closedSessionIds: string[];
}

export interface WorkspaceRegistrationList {
  schemaVersion: 1;
  primaryWorkspace: string;
  entries: { id: string; cwd: string; displayName?: string; active: boolean; persisted: true }[];
}

export interface ForgottenRegistration {
  removed: true;
  active: boolean;
  restartRequired: boolean;
}

export interface RuntimeStopReceipt {
  channelId: string;
  runtimeEpoch: number;
  stopToken: string;
  state: "stopped";
  stopped: boolean;
  /** The child is gone: the release signal. */
  released: boolean;
  affectedSessionIds: string[];
  closedSessionIds: string[];
  interruptedSessionIds: string[];
  remainingSessionIds: string[];
  error?: string;
}

export interface RuntimeStopPreview {
  workspaceId: string;
  cwd: string;
  displayName?: string;
  primary: boolean;
  state: "cold" | "starting" | "idle" | "active" | "stopping";
  canStop: boolean;
  activity: WorkspaceActivity;
  runtimeEpoch: number;
  /** One-time: spent by the stop it confirms. */
  stopToken: string;
  sessions: { sessionId: string; displayName?: string; hasActivePrompt: boolean; queuedPrompts: number; isWaitingForPermission: boolean }[];
  /** Absent while no agent runs. */
  channelId?: string;
  blockedReasons: string[];
  lastStop?: RuntimeStopReceipt;
}

export interface RuntimeStopCapacity {
  committedAcpChildren: number;
  maxConcurrentChildren: number;
}

export interface RuntimeStopOptions extends RuntimeStopCapacity {
  workspaces: RuntimeStopPreview[];
}

export type RuntimeStopResult = RuntimeStopReceipt & RuntimeStopCapacity & { workspaceId: string };

/** What `stopWorkspaceRuntime` submits: the preview the user confirmed. */
export interface RuntimeStopConfirmation {
  confirmInterruptions: true;
  expectedChannelId: string;
  expectedRuntimeEpoch: number;
  expectedStopToken: string;
  expectedSessionIds: string[];
}
