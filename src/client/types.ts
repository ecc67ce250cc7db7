/**
 * The wire types the client SDK reads and sends, written by hand from the daemon's served
 * `/openapi.json` (the server's TypeBox schemas pull in server runtime code, so they are mirrored,
 * not imported). Only the members a client acts on are typed; bodies are additive, so every object
 * may carry more.
 */

/** The error body every daemon error answers with (filesystem errors add `errorKind` and `status`). */
export interface ErrorBody {
  error: string;
  code?: string | number;
  errorKind?: string;
  retryable?: boolean;
  hint?: string;
  [more: string]: unknown;
}

export interface Capabilities {
  v: number;
  mode: string;
  features: string[];
  workspaceCwd?: string;
  protocolVersions?: { current: string; supported: string[] };
  policy?: { permission?: string };
  /** The daemon's workspaces; `trusted` is its folder trust decision for each. */
  workspaces?: { id: string; cwd: string; displayName?: string; primary: boolean; trusted: boolean; removable?: boolean }[];
}

export interface Health {
  status: string;
  sessions?: number;
  pendingPermissions?: number;
}

export interface CreateSessionRequest {
  cwd?: string;
  sessionScope?: "single" | "thread";
  modelServiceId?: string;
  /** Start a new session in a fresh git worktree of the workspace (`.qwen/worktrees/<slug>`, branch `worktree-<slug>`); no slug: a fresh name. */
  worktree?: { slug?: string };
}

/** A session's git worktree: its name, checkout path and branch. */
export interface SessionWorktree {
  slug: string;
  path: string;
  branch: string;
}

export interface CreatedSession {
  sessionId: string;
  workspaceCwd: string;
  attached: boolean;
  clientId: string;
  createdAt: string;
  hasActivePrompt?: boolean;
  modelApplied?: boolean;
  /** A session in a worktree: the worktree, `persisted-v1`, and the checkout it works in. */
  worktree?: SessionWorktree;
  worktreeState?: "persisted-v1";
  currentCwd?: string;
}

/** Options of the replacement session a worktree reset starts. */
export interface WorktreeResetRequest {
  modelServiceId?: string;
  sourceType?: string;
  sourceId?: string;
}

/** The replacement session, in the same worktree. */
export type WorktreeResetAnswer = CreatedSession & { worktree: SessionWorktree; worktreeState: "persisted-v1"; currentCwd: string };

/** One row of the session list: a live session (`live: true`) or a persisted one. */
export interface SessionListItem {
  sessionId: string;
  live: boolean;
  isArchived?: boolean;
  displayName?: string;
  titleSource?: "manual" | "agent" | "auto";
  createdAt?: string;
  updatedAt?: string;
  hasActivePrompt?: boolean;
  isWaitingForPermission?: boolean;
  workspaceCwd?: string;
  /** The organized view's members (`organized: true`). */
  groupId?: string | null;
  color?: string | null;
  isPinned?: boolean;
  pinnedAt?: string;
  sortOrder?: number | null;
  /** A branch's parent session, and the parent's last turn it holds. */
  parentSessionId?: string;
  parentPromptId?: string;
  [more: string]: unknown;
}

export interface SessionListPage {
  sessions: SessionListItem[];
  nextCursor?: string;
}

/** Names the workspace a workspace route targets (its `/workspaces/:workspace/…` form); without it, the daemon's primary workspace. */
export interface WorkspaceOption {
  /** Workspace id (16 hex digits) or absolute path. */
  workspace?: string;
}

export interface ListSessionsOptions {
  /** Workspace id or absolute path; defaults to the daemon's workspace (from `/capabilities`). */
  workspace?: string;
  archived?: boolean;
  size?: number;
  cursor?: string;
  /** The organized view: pinned first, then by sort order, then newest; each with its organization. */
  organized?: boolean;
  /** With `organized`: `all`, `pinned`, `ungrouped` or a group id. */
  group?: string;
}

export interface BulkOutcome {
  results: { sessionId: string; outcome: "archived" | "unarchived" | "deleted" | "not_found" | "live" }[];
}

export interface SessionMetadata {
  sessionId: string;
  displayName?: string;
}

/** An ACP content block of a prompt; the UI sends text blocks. */
export type PromptBlock = { type: "text"; text: string } | { type: string; [more: string]: unknown };

export interface PromptAdmission {
  promptId: string;
  lastEventId: number;
  eventEpoch: string;
}

export interface PendingPrompt {
  promptId: string;
  text: string;
  queuedAt: number | string;
  state: string;
}

export type PermissionOutcome = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

export const APPROVAL_MODES = ["plan", "default", "auto-edit", "auto", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export interface ApprovalModeResult {
  sessionId: string;
  mode: ApprovalMode;
  previous: string | null;
  persisted: boolean;
}

/** The agent's live state as `GET /session/:id/context` and `load` report it (ACP shapes). */
export interface SessionState {
  models?: { currentModelId?: string; availableModels?: { modelId: string; name?: string }[] } | null;
  modes?: { currentModeId?: string; availableModes?: { id: string; name?: string }[] } | null;
  configOptions?: unknown;
  [more: string]: unknown;
}

export interface SessionContext {
  v: number;
  sessionId: string;
  workspaceCwd: string;
  state?: SessionState;
}

/** One SSE envelope (the JSON on a frame's `data:` line, or one journal record). */
export interface EventEnvelope {
  /** Per-session monotonic id; absent on synthetic frames. */
  id?: number;
  v: number;
  type: string;
  data: any;
  promptId?: string;
  originatorClientId?: string;
  _meta: { serverTimestamp: number; eventEpoch?: string; [more: string]: unknown };
}

export interface LoadedSession {
  sessionId: string;
  workspaceCwd: string;
  attached: boolean;
  clientId: string;
  createdAt: string;
  state: SessionState;
  hasActivePrompt: boolean;
  lastEventId: number;
  eventEpoch: string;
  restoredBy: string;
  /** The newest journaled envelopes, oldest first (load only). */
  compactedReplay?: EventEnvelope[];
  /** Envelopes published while the replay was read (load only). */
  liveJournal?: EventEnvelope[];
}

export interface TranscriptPage {
  v: number;
  sessionId: string;
  events: EventEnvelope[];
  hasMore: boolean;
  nextCursor?: string;
}

export interface DirectoryEntry {
  name: string;
  kind: "file" | "directory" | "symlink" | "other";
  ignored: boolean;
}

export interface DirectoryListing {
  kind: "list";
  path: string;
  entries: DirectoryEntry[];
  truncated: boolean;
}

export interface FileText {
  kind: "file";
  path: string;
  content: string;
  encoding: string;
  sizeBytes: number;
  returnedBytes: number;
  truncated: boolean;
  hash: string;
}

/** A status cell of a workspace status route. */
export interface StatusCell {
  kind: string;
  status: "ok" | "warning" | "error" | "disabled" | "not_started" | "unknown" | string;
  name?: string;
  error?: string;
  errorKind?: string;
  hint?: string;
  [more: string]: unknown;
}

/** A workspace status envelope (preflight, env, mcp, tools, skills, providers): its cell lists vary by route. */
export interface WorkspaceStatus {
  v: number;
  workspaceCwd: string;
  initialized: boolean;
  errors?: StatusCell[];
  [more: string]: unknown;
}

export type WorkspaceSection = "preflight" | "env" | "mcp" | "tools" | "skills" | "providers";

export type TrustState = "trusted" | "untrusted";

/** `GET /workspace/trust`: the bound workspace's folder trust. */
export interface WorkspaceTrust {
  v: number;
  workspaceCwd: string;
  folderTrustEnabled: boolean;
  effective: { state: TrustState; source?: string };
  /** Workspace settings ignored because the folder is not trusted (e.g. `tools.approvalMode`). */
  ignoredSettings?: string[];
  [more: string]: unknown;
}

/** `POST /workspace/trust/request`'s 202 answer. */
export interface TrustChangeAnswer {
  accepted: boolean;
  desiredState: TrustState;
  requiresOperatorAction?: boolean;
  [more: string]: unknown;
}
