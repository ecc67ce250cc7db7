/**
 * One workspace the daemon serves, as routes see it: its canonical path and id, its live trust and
 * its agent runtime. The primary workspace (`--workspace`) is the one the legacy singular routes
 * target (scope `legacy-primary`); the `/workspaces/:workspace/...` routes resolve theirs by selector.
 */
import type { WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import type { WorkspaceTrust } from "../trust/index.ts";

export interface WorkspaceScope {
  /** Canonical absolute path (realpath). */
  readonly path: string;
  /** `workspaceId(path)`: 16 hex digits. */
  readonly id: string;
  readonly primary: boolean;
  /** The user's trust decision for this folder, live. */
  readonly trust: WorkspaceTrust;
  /** Its agent child (started on first use). */
  readonly runtime: WorkspaceRuntime;
}

export interface WorkspaceScopes {
  readonly primaryScope: WorkspaceScope;
  /**
   * The workspace a `:workspace` selector names: a workspace id or an absolute path (URL-decoded).
   * 400 `invalid_workspace` when it is neither, 404 `workspace_not_found` when none is registered there.
   */
  resolve(selector: string, param?: string): WorkspaceScope;
  /** Every workspace served, the primary first. */
  scopes(): readonly WorkspaceScope[];
}

/** A scope as the registry keeps it: what the registration routes and `/capabilities` report of it. */
export interface ManagedScope extends WorkspaceScope {
  /** Shown in clients instead of the path; null: none. Not persisted for the primary or a dynamic registration. */
  displayName: string | null;
  /** Registered with `persist: true`: kept in `svc.db` and served again after a restart. */
  persisted: boolean;
  /** Being removed or stopped: routes of its live sessions answer 503 `workspace_runtime_unavailable`. */
  draining: boolean;
}
