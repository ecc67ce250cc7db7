/**
 * The client's checkpoint and rewind calls (spread into `createClient`'s client): a session's turns
 * with the files each changed, and the rewind of files, conversation or both to before one of them.
 * A rewind needs the daemon's token (a strict route); files changed outside the session since fail
 * it with a `DaemonApiError` of status 409, code `rewind_conflict`, whose body lists them in `files`.
 */
type Call = <T>(path: string, o?: { method?: string; body?: unknown; session?: string }) => Promise<T>;

const enc = encodeURIComponent;

export interface RewindFileChange {
  path: string;
  change: "created" | "modified" | "deleted";
  /** `tool`: an edit tool's write; `shell`: found in git's tracked files after the turn. */
  source: "tool" | "shell";
  restorable: boolean;
  reason?: string;
}

export interface RewindTurn {
  promptId: string;
  turnIndex: number;
  timestamp: string;
  diffStats: { filesChanged: number };
  files: RewindFileChange[];
  /** Files changed past the daemon's per-turn record bound: not listed, not restorable. */
  filesOmitted?: number;
}

export interface RewindOptions {
  /** Restore the files (default true). */
  files?: boolean;
  /** Cut the agent's conversation back (default true; 501 from agents that cannot). */
  conversation?: boolean;
  /** Restore files even if they changed outside the session since. */
  force?: boolean;
}

export interface RewindResult {
  rewound: boolean;
  promptId: string;
  targetTurnIndex: number | null;
  filesChanged: string[];
  filesFailed: string[];
  conversationRewound: boolean;
}

export function rewindCalls(call: Call) {
  return {
    /** The session's recorded turns, oldest first, with the files each changed. */
    rewindSnapshots: async (sessionId: string) => (await call<{ snapshots: RewindTurn[] }>(`/session/${enc(sessionId)}/rewind/snapshots`)).snapshots,
    /** Puts files and/or the conversation back to before turn `promptId`. */
    rewind: (sessionId: string, promptId: string, o: RewindOptions = {}) =>
      call<RewindResult>(`/session/${enc(sessionId)}/rewind`, {
        method: "POST",
        session: sessionId,
        body: {
          promptId,
          ...(o.files === undefined ? {} : { rewindFiles: o.files }),
          ...(o.conversation === undefined ? {} : { rewindConversation: o.conversation }),
          ...(o.force === undefined ? {} : { force: o.force }),
        },
      }),
  };
}
