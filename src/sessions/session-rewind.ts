/**
 * Rewinding a session to before one of its turns (`POST /session/:id/rewind`): the files the turns
 * from it on changed (`src/checkpoints/`), the agent's conversation, or both.
 *
 * Order: refuse while the session is busy (409 `session_busy`, a prompt running or queued, or a
 * permission pending) or another rewind of it runs; find the turn (400 `invalid_rewind_target`);
 * with files, refuse when a file is not what the session left it as (409 `rewind_conflict`, listing
 * `files`) unless `force`; with the conversation, ask the agent first (a third-party agent cannot:
 * 501 `agent_control_unsupported`, and nothing was changed); then put the files back. A file that
 * cannot be put back (a link now stands there, its content was too large or over the snapshot
 * budget to keep, it now lies outside the workspace) is listed in `filesFailed`, the rest restored.
 * The session then publishes `session_rewound`. A prompt admitted during the rewind waits for it
 * before it reaches the agent.
 *
 * The turns from the target on are forgotten with the conversation; a files-only rewind keeps
 * the turns (the conversation still holds them) and forgets only their file records.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { ChannelClosedError } from "../runtime/acp-channel.ts";
import { rewindConversation } from "../runtime/profile-controls.ts";
import type { CheckpointSeam } from "./checkpoint-seam.ts";
import type { LiveSession } from "./live-session.ts";

export interface RewindRequest {
  readonly promptId: string;
  readonly rewindFiles: boolean;
  readonly rewindConversation: boolean;
  readonly force: boolean;
}

export interface RewindResult {
  readonly rewound: boolean;
  readonly promptId: string;
  /** The turn's index among the session's turns; null when the daemon has no record of it (a conversation-only rewind). */
  readonly targetTurnIndex: number | null;
  readonly filesChanged: string[];
  readonly filesFailed: string[];
  readonly conversationRewound: boolean;
}

const busy = () => new DaemonError(409, "session_busy", "Cannot rewind while a prompt is running or queued, or a permission is pending", { retryable: true }, 5);
const unknownTurn = (promptId: string) => new DaemonError(400, "invalid_rewind_target", "The session has no recorded turn for this prompt id", { promptId });

export class SessionRewinder {
  /** Sessions a rewind is running for. */
  private readonly running = new Set<string>();

  constructor(private readonly checkpoints: CheckpointSeam) {}

  async rewind(session: LiveSession, request: RewindRequest, originatorClientId: string | null): Promise<RewindResult> {
    if (!request.rewindFiles && !request.rewindConversation) throw new DaemonError(400, "invalid_rewind_request", "Nothing to rewind: rewindFiles and rewindConversation are both false");
    if (session.busy || this.checkpoints.isRunning(session.id) || this.running.has(session.id)) throw busy();
    this.running.add(session.id);
    try {
      // A prompt admitted meanwhile reaches the agent only after the rewind.
      return await this.checkpoints.holding(session.id, () => this.run(session, request, originatorClientId));
    } finally {
      this.running.delete(session.id);
    }
  }

  private async run(session: LiveSession, request: RewindRequest, originatorClientId: string | null): Promise<RewindResult> {
    const checkpoints = await this.checkpoints.load();
    const plan = checkpoints.plan(session.id, request.promptId);
    // Without a record, only the conversation can be rewound (the agent knows its own prompts).
    if (plan === null && request.rewindFiles) throw unknownTurn(request.promptId);
    // The files the session works on: its worktree's checkout, else the workspace (the snapshots' root too).
    const root = session.cwd;
    if (plan !== null && request.rewindFiles && !request.force) {
      const files = await checkpoints.conflicts(root, plan);
      if (files.length > 0)
        throw new DaemonError(409, "rewind_conflict", `${files.length} file(s) changed outside the session since; send force: true to restore them anyway`, { files, promptId: request.promptId });
    }
    if (request.rewindConversation) {
      const live = session.runtime.current();
      if (!live) throw new ChannelClosedError("no agent child is running for this session");
      await rewindConversation(live, session.agentSessionId, request.promptId);
    }
    const outcome = plan !== null && request.rewindFiles ? await checkpoints.restore(root, plan) : { filesChanged: [], filesFailed: [] };
    if (plan !== null) checkpoints.forget(plan.turn, request.rewindConversation);
    const result: RewindResult = {
      rewound: outcome.filesFailed.length === 0,
      promptId: request.promptId,
      targetTurnIndex: plan?.turn.index ?? null,
      filesChanged: outcome.filesChanged,
      filesFailed: outcome.filesFailed,
      conversationRewound: request.rewindConversation,
    };
    session.publish("session_rewound", { sessionId: session.id, ...result }, originatorClientId ? { originatorClientId } : {});
    return result;
  }
}
