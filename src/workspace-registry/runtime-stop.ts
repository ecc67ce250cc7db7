/**
 * Runtime stop (`GET /workspaces/runtime-stop-options`, `POST /workspaces/:workspace/runtime/stop`):
 * a client previews what stopping a workspace's agent child would end (its channel id, the
 * runtime epoch, a one-time stop token and the live sessions), the user confirms, and the client
 * submits that preview. A submission that no longer matches the runtime (another child, another
 * token, another session set) is refused as stale; one that matches closes the sessions (each stays
 * persisted and restorable) and stops the child, and answers a receipt. Submitting the receipt's
 * preview again answers the same receipt: a client that lost the answer refreshes it that way.
 * The workspace stays registered; its next session starts a fresh child.
 *
 * Shapes follow the reference daemon.
 */
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { RuntimeRegistry } from "../sessions/runtime-registry.ts";
import type { SessionManager } from "../sessions/session-manager.ts";
import type { WorkspaceActivity, WorkspaceRegistrations } from "./registrations.ts";
import type { ManagedScope } from "./workspace-scope.ts";

export interface StopConfirmation {
  readonly confirmInterruptions: true;
  readonly expectedChannelId: string;
  readonly expectedRuntimeEpoch: number;
  readonly expectedStopToken: string;
  readonly expectedSessionIds: readonly string[];
}

export interface StopReceipt {
  channelId: string;
  runtimeEpoch: number;
  stopToken: string;
  state: "stopped";
  stopped: boolean;
  /** The child is gone and its slot free. */
  released: boolean;
  affectedSessionIds: string[];
  closedSessionIds: string[];
  interruptedSessionIds: string[];
  remainingSessionIds: string[];
  error?: string;
}

export interface StopSessionView {
  sessionId: string;
  displayName?: string;
  hasActivePrompt: boolean;
  queuedPrompts: number;
  isWaitingForPermission: boolean;
}

export interface StopPreview {
  workspaceId: string;
  cwd: string;
  displayName?: string;
  primary: boolean;
  /** `cold` (no child), `starting`, `idle` (a child, no session), `active`, `stopping`. */
  state: "cold" | "starting" | "idle" | "active" | "stopping";
  canStop: boolean;
  activity: WorkspaceActivity;
  runtimeEpoch: number;
  stopToken: string;
  sessions: StopSessionView[];
  channelId?: string;
  blockedReasons: string[];
  lastStop?: StopReceipt;
}

export interface StopCapacity {
  /** Agent children running now. */
  committedAcpChildren: number;
  /** At most one child per workspace served (`--max-workspaces`). */
  maxConcurrentChildren: number;
}

export interface RuntimeStopDeps {
  readonly config: Config;
  readonly runtimes: RuntimeRegistry;
  readonly sessions: SessionManager;
  readonly registrations: WorkspaceRegistrations;
}

export class RuntimeStops {
  /** Each workspace's current one-time stop token (replaced once used). */
  private readonly tokens = new WeakMap<ManagedScope, string>();
  private readonly lastStops = new WeakMap<ManagedScope, StopReceipt>();

  constructor(private readonly deps: RuntimeStopDeps) {}

  capacity(): StopCapacity {
    return { committedAcpChildren: this.deps.runtimes.all().filter((r) => r.current() !== null).length, maxConcurrentChildren: this.deps.config.limits.maxWorkspaces };
  }

  /** Every workspace's preview, the primary first. */
  options(): StopCapacity & { workspaces: StopPreview[] } {
    return { ...this.capacity(), workspaces: this.deps.runtimes.scopes().map((s) => this.preview(s)) };
  }

  preview(scope: ManagedScope): StopPreview {
    const { runtime } = scope;
    const live = runtime.current();
    const sessions = this.deps.sessions.sessionsOf(runtime);
    const activity = this.deps.registrations.activity(scope);
    const blockedReasons: string[] = [];
    if (scope.draining) blockedReasons.push("stopping");
    if (!scope.primary && !scope.trust.trusted) blockedReasons.push("untrusted");
    if (live === null) blockedReasons.push("not_live");
    if (runtime.startInProgress || activity.pendingSessionStarts > 0) blockedReasons.push("session_start_pending");
    const state = scope.draining ? "stopping" : runtime.startInProgress ? "starting" : live === null ? "cold" : sessions.length > 0 ? "active" : "idle";
    const last = this.lastStops.get(scope);
    return {
      workspaceId: scope.id,
      cwd: scope.path,
      ...(scope.displayName === null ? {} : { displayName: scope.displayName }),
      primary: scope.primary,
      state,
      canStop: blockedReasons.length === 0,
      activity,
      runtimeEpoch: runtime.epoch,
      stopToken: this.token(scope),
      sessions: sessions.map((s) => ({
        sessionId: s.id,
        ...(s.metadata.displayName === undefined ? {} : { displayName: s.metadata.displayName }),
        hasActivePrompt: s.prompts.running !== null,
        queuedPrompts: s.prompts.size - (s.prompts.running === null ? 0 : 1),
        isWaitingForPermission: s.permissions.pendingCount > 0,
      })),
      ...(live === null ? {} : { channelId: live.id }),
      blockedReasons,
      ...(last === undefined ? {} : { lastStop: { ...last } }),
    };
  }

  /**
   * Stops the workspace's child as previewed. The receipt again for the preview it answered; 409
   * `workspace_runtime_stop_blocked` (with the preview) when nothing can be stopped now, 409
   * `workspace_runtime_stop_stale` when the preview no longer matches.
   */
  async stop(scope: ManagedScope, confirmation: StopConfirmation): Promise<StopReceipt & StopCapacity & { workspaceId: string }> {
    const last = this.lastStops.get(scope);
    const answer = (receipt: StopReceipt) => ({ ...receipt, workspaceId: scope.id, ...this.capacity() });
    if (last && last.stopToken === confirmation.expectedStopToken && last.channelId === confirmation.expectedChannelId && last.runtimeEpoch === confirmation.expectedRuntimeEpoch)
      return answer(last);
    const before = this.preview(scope);
    if (!before.canStop) throw new DaemonError(409, "workspace_runtime_stop_blocked", "Workspace has independent runtime work.", { preview: before });
    const ids = before.sessions.map((s) => s.sessionId).sort();
    const expected = [...confirmation.expectedSessionIds].sort();
    if (
      before.stopToken !== confirmation.expectedStopToken ||
      before.channelId !== confirmation.expectedChannelId ||
      before.runtimeEpoch !== confirmation.expectedRuntimeEpoch ||
      ids.length !== expected.length ||
      ids.some((id, i) => id !== expected[i])
    )
      throw new DaemonError(409, "workspace_runtime_stop_stale", "The workspace changed. Refresh and confirm the affected sessions again.");
    // The token is spent: a second submission of this preview gets the receipt, any other is stale.
    this.tokens.set(scope, crypto.randomUUID());
    scope.draining = true;
    const receipt: StopReceipt = {
      channelId: before.channelId!,
      runtimeEpoch: before.runtimeEpoch,
      stopToken: before.stopToken,
      state: "stopped",
      stopped: false,
      released: false,
      affectedSessionIds: ids,
      closedSessionIds: [],
      interruptedSessionIds: ids,
      remainingSessionIds: [],
    };
    try {
      receipt.closedSessionIds = await this.deps.sessions.closeAll(scope.runtime, "workspace_runtime_stop");
      await scope.runtime.stopIfIdle();
      receipt.stopped = true;
      receipt.released = scope.runtime.current() === null;
    } finally {
      scope.draining = false;
    }
    this.lastStops.set(scope, receipt);
    return answer(receipt);
  }

  private token(scope: ManagedScope): string {
    let token = this.tokens.get(scope);
    if (token === undefined) this.tokens.set(scope, (token = crypto.randomUUID()));
    return token;
  }
}
