/**
 * Side questions (`POST /session/:id/btw`, the `/btw` of coding agents): a question asked of the
 * session's model with the session's context, answered beside the conversation. The answer enters
 * neither the agent's history nor the prompt queue nor the session's event stream, and a running
 * turn neither waits for it nor holds it up.
 *
 * Per agent profile:
 * - `svc` (built-in): the daemon's journal digest (session-generation.ts) and the question go to
 *   the session's model through `svc/control/session/generate` (stateless, no tools), so the
 *   answer sees what the journal saw, a running turn's output included;
 * - `qwen`: the agent's own `qwen/control/session/btw {sessionId, question}` → `{answer}` (it
 *   forks the conversation itself);
 * - any other, or an agent without the method: 501 `agent_control_unsupported`.
 *
 * Bounds: the question (MAX_QUESTION_BYTES), the answer (MAX_ANSWER_BYTES, cut ending in `…`),
 * BTW_TIMEOUT_MS per question (504 `side_question_timeout`), one question at a time per session
 * (409 `side_question_in_progress`) and MAX_RUNNING in the daemon (429 `side_questions_busy`). A
 * session that ends mid-question ends it: the request to the agent is abandoned and the answer is
 * 409 `session_closed`.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { AgentRequestError } from "../runtime/acp-channel.ts";
import { agentCannot, agentFailure, isMissing } from "../runtime/profile-controls.ts";
import { cutText } from "../runtime/permission-bounds.ts";
import type { Store } from "../store/store.ts";
import type { LiveSession } from "./live-session.ts";
import { digestText, readDigest } from "./session-generation.ts";

/** Longest question (UTF-8 bytes); the reference's 4096 UTF-16 units always fit. Over: 400 `invalid_question`. */
export const MAX_QUESTION_BYTES = 16 * 1024;
/** Longest answer passed on (UTF-8 bytes); a longer one is cut, ending in `…`. */
export const MAX_ANSWER_BYTES = 16 * 1024;
/** The whole wait for one answer (the reference's). Over: 504 `side_question_timeout`. */
export const BTW_TIMEOUT_MS = 60_000;
/** Side questions running at once in the daemon, over all sessions. Over: 429 `side_questions_busy`. */
export const MAX_RUNNING = 8;
/** Output tokens asked of the built-in agent's model for an answer. */
const ANSWER_TOKENS = 1024;
const WHAT = "answer a side question";

const SYSTEM = [
  "You answer a side question from the user of a coding session between the user and an AI coding agent.",
  "The agent's work is not interrupted: you are a separate, lightweight request with no tools.",
  "Use only what the session transcript below shows; do not promise to look anything up. If it does not tell, say so.",
  "Answer directly and briefly.",
].join("\n");

export interface SideAnswer {
  readonly sessionId: string;
  /** The model's answer; null when it had none. */
  readonly answer: string | null;
  /** The model that answered, when the agent says. */
  readonly model?: string;
}

/** The question, trimmed, or 400 `invalid_question`. */
export function checkQuestion(question: string): string {
  const trimmed = question.trim();
  if (trimmed === "" || Buffer.byteLength(question) > MAX_QUESTION_BYTES)
    throw new DaemonError(400, "invalid_question", `\`question\` must be a non-empty string of at most ${MAX_QUESTION_BYTES} UTF-8 bytes`, { maxBytes: MAX_QUESTION_BYTES });
  return trimmed;
}

const answerOf = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? cutText(value.toWellFormed(), MAX_ANSWER_BYTES) : null);

export class SideQuestions {
  /** Ids of the sessions with a question running. */
  private readonly running = new Set<string>();

  constructor(
    private readonly store: Store | null,
    private readonly timeoutMs = BTW_TIMEOUT_MS,
  ) {}

  /** Asks `question` (already checked) of `session`'s agent; `signal`: the asker went away. */
  async ask(session: LiveSession, question: string, signal?: AbortSignal): Promise<SideAnswer> {
    const live = session.runtime.current();
    if (session.isEnded) throw new DaemonError(409, "session_closed", "The session has ended", { sessionId: session.id });
    if (live === null) throw new DaemonError(503, "workspace_runtime_unavailable", "Workspace runtime is not active.", {}, 1);
    if (live.profile.extensionPrefix !== "svc" && live.profile.extensionPrefix !== "qwen") throw agentCannot(live, WHAT);
    if (this.running.has(session.id))
      throw new DaemonError(409, "side_question_in_progress", "A side question is already being answered in this session", { sessionId: session.id, retryable: true }, 1);
    if (this.running.size >= MAX_RUNNING) throw new DaemonError(429, "side_questions_busy", `${MAX_RUNNING} side questions are being answered already`, { limit: MAX_RUNNING }, 5);
    this.running.add(session.id);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const stop = AbortSignal.any([timeout, session.endSignal, ...(signal ? [signal] : [])]);
    try {
      if (live.profile.extensionPrefix === "qwen") {
        const answer = await live.channel.request<{ answer?: unknown } | null>("qwen/control/session/btw", { sessionId: session.agentSessionId, question }, { signal: stop });
        return { sessionId: session.id, answer: answerOf(answer?.answer) };
      }
      const digest = digestText(readDigest(this.store, session.id));
      const prompt = `${digest === "" ? "The session has no transcript yet." : `The session so far:\n\n${digest}`}\n\nThe user's side question:\n\n${question}`;
      const answer = await live.channel.request<{ text?: unknown; model?: unknown } | null>(
        "svc/control/session/generate",
        { sessionId: session.agentSessionId, prompt, system: SYSTEM, maxOutputTokens: ANSWER_TOKENS },
        { signal: stop },
      );
      return { sessionId: session.id, answer: answerOf(answer?.text), ...(typeof answer?.model === "string" ? { model: cutText(answer.model, 256) } : {}) };
    } catch (err) {
      if (session.endSignal.aborted) throw new DaemonError(409, "session_closed", "The session ended before the side question was answered", { sessionId: session.id });
      if (timeout.aborted) throw new DaemonError(504, "side_question_timeout", `The side question was not answered within ${this.timeoutMs} ms`, { timeoutMs: this.timeoutMs });
      if (isMissing(err)) throw agentCannot(live, WHAT);
      if (err instanceof AgentRequestError) throw agentFailure(err, WHAT);
      throw err;
    } finally {
      this.running.delete(session.id);
    }
  }
}
