/**
 * The prompts of one session, run one at a time in admission order. Every admitted prompt ends with
 * exactly one `turn_complete` or `turn_error` carrying its `promptId`, whatever happens: agent
 * answer, agent error, cancel, deadline, session close, child crash or daemon shutdown.
 * The queue (running + waiting) is capped at `maxPending`; past it admission answers 503.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { DaemonError } from "../errors/daemon-error.ts";
import type { EnvelopeFields } from "../events/frame.ts";
import type { Logger } from "../logging/logger.ts";
import { AgentRequestError } from "../runtime/acp-channel.ts";
import type { LiveSession } from "./live-session.ts";

/** Hard ceiling when `--max-pending-prompts-per-session 0` asks for "unlimited". */
export const UNLIMITED_PENDING_CEILING = 1000;
/** After a cancel, how long the agent gets to end the turn before the daemon ends it itself. */
export const CANCEL_GRACE_MS = 5000;
/** Chars of prompt text kept for `pending-prompts` and queue events. */
const TEXT_PREVIEW_CHARS = 2000;

export type TerminalCode = "prompt_deadline_exceeded" | "session_closed" | "channel_closed" | "daemon_shutdown";

export interface QueuedPrompt {
  readonly promptId: string;
  readonly content: acp.ContentBlock[];
  readonly text: string;
  readonly queuedAt: number;
  readonly originatorClientId: string | null;
  state: "queued" | "running";
  /** Set when it had to wait behind another prompt (drives pending_prompt_* events). */
  waited: boolean;
  settled: boolean;
  startedAt: number | null;
  cancelledAt: number | null;
  readonly abort: AbortController;
  deadline: Timer | null;
}

export interface PromptQueueDeps {
  readonly maxPending: number;
  readonly deadlineMs: number | null;
  readonly logger: Logger;
  /** Cancels the pending permissions of a prompt that ended. */
  readonly onPromptEnded: (promptId: string) => void;
}

export interface Admission {
  readonly promptId: string;
  readonly lastEventId: number;
  readonly eventEpoch: string;
}

function textOf(content: readonly acp.ContentBlock[]): string {
  let text = "";
  for (const block of content) if (block.type === "text" && typeof block.text === "string") text += (text ? "\n" : "") + block.text;
  return text.slice(0, TEXT_PREVIEW_CHARS);
}

export class PromptQueue {
  private readonly items: QueuedPrompt[] = [];
  /** Set by `endAll`: nothing new starts once the session is going away. */
  private closing = false;
  /** The last failed turn, until the next prompt starts. */
  lastTurnError: { message: string; code?: string; errorKind?: string } | null = null;

  constructor(
    private readonly session: LiveSession,
    private readonly deps: PromptQueueDeps,
  ) {}

  get running(): QueuedPrompt | null {
    const first = this.items[0];
    return first && first.state === "running" ? first : null;
  }

  get size(): number {
    return this.items.length;
  }

  list(): readonly QueuedPrompt[] {
    return this.items;
  }

  submit(content: acp.ContentBlock[], clientId: string | null, requestDeadlineMs: number | null): Admission {
    if (this.closing) throw new DaemonError(404, "session_not_found", `No session with id "${this.session.id}"`, { sessionId: this.session.id });
    const limit = this.deps.maxPending > 0 ? this.deps.maxPending : UNLIMITED_PENDING_CEILING;
    if (this.items.length >= limit)
      throw new DaemonError(503, "prompt_queue_full", `The session already has ${this.items.length} pending prompts`, { sessionId: this.session.id, limit, pendingCount: this.items.length }, 5);
    const bus = this.session.bus;
    const admission: Admission = { promptId: crypto.randomUUID(), lastEventId: bus.lastId, eventEpoch: bus.epoch };
    const prompt: QueuedPrompt = {
      promptId: admission.promptId,
      content,
      text: textOf(content),
      queuedAt: Date.now(),
      originatorClientId: clientId,
      state: "queued",
      waited: this.items.length > 0,
      settled: false,
      startedAt: null,
      cancelledAt: null,
      abort: new AbortController(),
      deadline: null,
    };
    this.items.push(prompt);
    const deadline = this.deps.deadlineMs === null ? null : Math.min(this.deps.deadlineMs, requestDeadlineMs ?? this.deps.deadlineMs);
    if (deadline !== null) prompt.deadline = setTimeout(() => this.expire(prompt, deadline), deadline);
    if (prompt.waited)
      this.session.publish("pending_prompt_added", { sessionId: this.session.id, promptId: prompt.promptId, text: prompt.text, queuedAt: prompt.queuedAt }, this.fieldsOf(prompt));
    else void this.run(prompt);
    return admission;
  }

  /** Cancels the running prompt only (queued ones go on). */
  async cancelRunning(cancellerClientId: string | null): Promise<void> {
    const prompt = this.running;
    if (!prompt || prompt.cancelledAt !== null) return;
    prompt.cancelledAt = Date.now();
    this.session.publish("prompt_cancelled", { sessionId: this.session.id }, { promptId: prompt.promptId, ...(cancellerClientId ? { originatorClientId: cancellerClientId } : {}) });
    // ACP order: the cancel reaches the agent before its pending permissions are answered
    // `cancelled`; the other way round the agent takes the answer as a refusal and keeps going.
    const live = this.session.runtime.current();
    const sent = live ? live.profile.cancelPrompt(live.channel, this.session.id) : null;
    this.deps.onPromptEnded(prompt.promptId);
    if (sent) {
      try {
        await sent;
      } catch (err) {
        this.deps.logger.warn("agent cancel failed", { sessionId: this.session.id, error: String(err) });
      }
    }
    // An agent that ignores the cancel does not keep the queue stuck.
    setTimeout(() => {
      if (!prompt.settled) this.settle(prompt, "turn_complete", { stopReason: "cancelled", promptCancelled: this.cancelInfo(prompt) });
    }, CANCEL_GRACE_MS).unref();
  }

  /** Ends every prompt (session closing, child gone, daemon stopping) before the session's last event. */
  endAll(code: "session_closed" | "channel_closed" | "daemon_shutdown"): void {
    this.closing = true;
    for (const prompt of [...this.items]) {
      if (prompt.state === "running" && code === "session_closed") {
        this.session.publish("prompt_cancelled", { sessionId: this.session.id, reason: "session_closed" }, this.fieldsOf(prompt));
        this.settle(prompt, "turn_complete", { stopReason: "cancelled", promptCancelled: this.cancelInfo(prompt) });
      } else {
        this.settle(prompt, "turn_error", { message: messageFor(code), code });
      }
    }
  }

  private async run(prompt: QueuedPrompt): Promise<void> {
    prompt.state = "running";
    prompt.startedAt = Date.now();
    this.lastTurnError = null;
    const fields = this.fieldsOf(prompt);
    const session = this.session;
    session.promptFields = fields;
    if (prompt.waited) session.publish("pending_prompt_started", { sessionId: session.id, promptId: prompt.promptId, text: prompt.text }, fields);
    for (const block of prompt.content)
      session.publish("session_update", { sessionId: session.id, update: { sessionUpdate: "user_message_chunk", content: block, _meta: { serverTimestamp: Date.now(), source: "bridge-echo" } } }, fields);

    // Let the admission answer go out before the prompt is written to the agent (that write and
    // its flush are the costliest part of starting a turn).
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (prompt.settled) return;
    if (prompt.cancelledAt !== null) {
      this.settle(prompt, "turn_complete", { stopReason: "cancelled", promptCancelled: this.cancelInfo(prompt) });
      return;
    }
    const live = session.runtime.current();
    if (!live) {
      this.settle(prompt, "turn_error", { message: messageFor("channel_closed"), code: "channel_closed" });
      return;
    }
    try {
      const response = await live.channel.request<acp.PromptResponse>(
        "session/prompt",
        { sessionId: session.id, prompt: prompt.content, _meta: { "svc/invocation": { version: 1, promptId: prompt.promptId } } },
        { signal: prompt.abort.signal },
      );
      // Once `prompt_cancelled` is out, the turn ends `cancelled` even if the agent finished it
      // another way (it may see the cancel only after answering, as ACP SDKs dispatch
      // notifications asynchronously).
      const stopReason = prompt.cancelledAt !== null ? "cancelled" : (response?.stopReason ?? "end_turn");
      this.settle(prompt, "turn_complete", { stopReason, ...(prompt.cancelledAt !== null ? { promptCancelled: this.cancelInfo(prompt) } : {}) });
    } catch (err) {
      if (prompt.settled) return;
      if (!session.runtime.channelLive) {
        this.settle(prompt, "turn_error", { message: messageFor("channel_closed"), code: "channel_closed" });
        return;
      }
      const data = err instanceof AgentRequestError ? (err.data as { details?: unknown } | undefined) : undefined;
      const message = typeof data?.details === "string" ? data.details : err instanceof Error ? err.message : String(err);
      const code = err instanceof AgentRequestError ? String(err.rpcCode) : err instanceof DaemonError && err.code ? err.code : undefined;
      this.settle(prompt, "turn_error", { message, ...(code ? { code } : {}), ...(message === "terminated" ? { errorKind: "model_stream_interrupted" } : {}) });
    }
  }

  private expire(prompt: QueuedPrompt, deadlineMs: number): void {
    if (prompt.settled) return;
    // The agent's cancel goes out before `settle` starts the next prompt: `session/cancel` names
    // the session, not the turn, so sent later it would cancel the next prompt instead.
    const live = this.session.runtime.current();
    if (prompt.state === "running" && live) void live.profile.cancelPrompt(live.channel, this.session.id).catch(() => {});
    this.settle(prompt, "turn_error", { message: `prompt exceeded the ${deadlineMs}ms deadline`, code: "prompt_deadline_exceeded", errorKind: "prompt_deadline_exceeded" });
    this.session.publish("prompt_cancelled", { sessionId: this.session.id, reason: "prompt_deadline_exceeded" }, this.fieldsOf(prompt));
  }

  /** Publishes the prompt's one terminal event, removes it and starts the next. */
  private settle(prompt: QueuedPrompt, type: "turn_complete" | "turn_error", data: Record<string, unknown>): void {
    if (prompt.settled) return;
    prompt.settled = true;
    if (prompt.deadline) clearTimeout(prompt.deadline);
    prompt.abort.abort();
    const fields = this.fieldsOf(prompt);
    this.session.publish(type, { sessionId: this.session.id, ...data, promptId: prompt.promptId }, fields);
    if (type === "turn_error") this.lastTurnError = { message: String(data.message), ...(data.code ? { code: String(data.code) } : {}), ...(data.errorKind ? { errorKind: String(data.errorKind) } : {}) };
    if (prompt.waited) this.session.publish("pending_prompt_completed", { sessionId: this.session.id, promptId: prompt.promptId, state: type === "turn_complete" ? "completed" : "failed" }, fields);
    this.deps.onPromptEnded(prompt.promptId);
    const index = this.items.indexOf(prompt);
    if (index !== -1) this.items.splice(index, 1);
    if (prompt.state === "running") {
      this.session.promptFields = {};
      const next = this.items[0];
      // With the agent channel gone the session is about to die: the queued prompts wait for
      // `endAll` rather than being started (echoed) on a child that can no longer take them.
      if (next && next.state === "queued" && !this.closing && this.session.runtime.channelLive) void this.run(next);
    }
  }

  private fieldsOf(prompt: QueuedPrompt): EnvelopeFields {
    return prompt.originatorClientId ? { promptId: prompt.promptId, originatorClientId: prompt.originatorClientId } : { promptId: prompt.promptId };
  }

  private cancelInfo(prompt: QueuedPrompt): { cancelledAt: string; elapsedMs: number } {
    const at = prompt.cancelledAt ?? Date.now();
    return { cancelledAt: new Date(at).toISOString(), elapsedMs: at - (prompt.startedAt ?? prompt.queuedAt) };
  }
}

function messageFor(code: TerminalCode): string {
  switch (code) {
    case "session_closed":
      return "session closed before the prompt completed";
    case "channel_closed":
      return "the agent process exited before the prompt completed";
    case "daemon_shutdown":
      return "the daemon shut down before the prompt completed";
    case "prompt_deadline_exceeded":
      return "prompt deadline exceeded";
  }
}
