/**
 * The client's branch call (spread into `createClient`'s client): a new session that starts from a
 * session's conversation at one of its turns (default the latest), linked to it as its parent.
 * A parent mid-turn fails it with a `DaemonApiError` of status 409, code
 * `branch_while_prompt_active`; a turn the session lacks with 400, `branch_point_invalid`.
 */
type Call = <T>(path: string, o?: { method?: string; body?: unknown; session?: string }) => Promise<T>;

export interface BranchOptions {
  /** The parent's last turn the branch holds, by prompt id (a turn-index `turnId`). */
  promptId?: string;
  /** The same by ordinal (0: the first turn); not with `promptId`. */
  turnIndex?: number;
  /** The branch's display name. */
  name?: string;
}

export interface BranchResult {
  sessionId: string;
  workspaceCwd: string;
  /** Registered on the branch for this caller. */
  clientId: string;
  createdAt: string;
  displayName: string;
  parentSessionId: string;
  parentPromptId?: string;
  turnIndex?: number;
  /** `fork`: the agent's own fork; `seeded`: a new agent session given the conversation as text. */
  branchedBy: "fork" | "seeded";
  forkedFrom: { sessionId: string; displayName: string };
}

export function branchCalls(call: Call) {
  return {
    /** Branches session `sessionId` at a turn (default its latest); the branch is live at once. */
    branchSession: (sessionId: string, o: BranchOptions = {}) =>
      call<BranchResult>(`/session/${encodeURIComponent(sessionId)}/branch`, { method: "POST", session: sessionId, body: o }),
  };
}
