/**
 * The client's side question call (spread into `createClient`'s client): a question asked of the
 * session's model with the session's context, answered beside its conversation (nothing enters its
 * history, queue or events) and while a turn runs. Refusals are `DaemonApiError`s: 409
 * `side_question_in_progress` (one at a time per session), 429 `side_questions_busy`, 501
 * `agent_control_unsupported` (the agent has no side-question path), 504 `side_question_timeout`.
 */
type Call = <T>(path: string, o?: { method?: string; body?: unknown; session?: string; signal?: AbortSignal }) => Promise<T>;

const enc = encodeURIComponent;

export interface SideAnswer {
  sessionId: string;
  /** The model's answer; null when it gave none. */
  answer: string | null;
  /** The model that answered, when the agent says. */
  model?: string;
}

export function sideQuestionCalls(call: Call) {
  return {
    /** Asks the session's model `question` (at most 16 KiB of UTF-8) beside the conversation; `signal` abandons it. */
    askSideQuestion: (sessionId: string, question: string, o: { signal?: AbortSignal } = {}) =>
      call<SideAnswer>(`/session/${enc(sessionId)}/btw`, { method: "POST", body: { question }, session: sessionId, ...(o.signal ? { signal: o.signal } : {}) }),
  };
}
