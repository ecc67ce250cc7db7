/**
 * The prompts of one session, run one at a time in admission order. Every admitted prompt ends with
 * exactly one `turn_complete` or `turn_error` carrying its `promptId`, whatever happens: agent
 * answer, agent error, cancel, deadline, session close, child crash, daemon shutdown, or a fault of
 * the daemon's own while running it (that ends this prompt, never the session or the daemon).
 * Every event of a prompt is published before the next prompt's first one, and the next prompt is
 * not sent to the agent while a cancel for the previous one is still being delivered (ACP's
 * `session/cancel` names the session, not the turn: sent late, it would cancel the next prompt).
 *
 * ACP runs one turn per session at a time, and its updates name the session only. So a prompt the
 * daemon ended before the agent answered it (deadline, cancel grace, a fault of its own) keeps the
 * agent's turn open: the next prompt starts (its `pending_prompt_started`, echo, and the
 * `session/prompt` itself) only once the agent has answered the previous one. Updates the agent
 * sends meanwhile belong to no live prompt and are published untagged (no `promptId`), like any
 * update outside a turn. An agent that has not answered UNANSWERED_TURN_BOUND_MS after the daemon
 * ended its turn counts as wedged: the next prompt, and every one after it until the agent answers,
 * ends with `turn_error` code `agent_turn_unanswered` without being sent (closing the session, or
 * the agent answering at last, ends that state).
 * The queue (running + waiting) is capped at `maxPending`; past it admission answers 503.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { DaemonError } from "../errors/daemon-error.ts";
import type { EventBus } from "../events/event-bus.ts";
import { AGENT_TURN_ERROR_KINDS } from "../events/turn-error-kinds.ts";
import type { EnvelopeFields } from "../events/frame.ts";
import type { Logger } from "../logging/logger.ts";
import { AgentRequestError } from "../runtime/acp-channel.ts";
import type { WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import { checkPublishable } from "./prompt-content.ts";

/** The `errorKind`s an agent may name in a failed prompt's error data (the event schema's set), passed on in `turn_error`; any other value is dropped. */
const AGENT_ERROR_KINDS: ReadonlySet<string> = new Set(AGENT_TURN_ERROR_KINDS);

/** Hard ceiling when `--max-pending-prompts-per-session 0` asks for "unlimited". */
export const UNLIMITED_PENDING_CEILING = 1000;
/** After a cancel, how long the agent gets to end the turn before the daemon ends it itself. */
export const CANCEL_GRACE_MS = 5000;
/**
 * How long after the daemon ended a turn the agent has not answered (see the header) the next
 * prompt waits for that answer before the session counts as wedged.
 */
export const UNANSWERED_TURN_BOUND_MS = 10_000;
/** Chars of prompt text kept for `pending-prompts` and queue events. */
const TEXT_PREVIEW_CHARS = 2000;

export type TerminalCode = "prompt_deadline_exceeded" | "session_closed" | "channel_closed" | "daemon_shutdown" | "agent_turn_unanswered";

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
  deadline: Timer | null;
}

/** What the queue needs from its session. */
export interface QueueHost {
  readonly id: string;
  /** The agent's id for the session (what `session/prompt` and the cancel name). */
  readonly agentSessionId: string;
  readonly bus: Pick<EventBus, "lastId" | "epoch">;
  readonly runtime: Pick<WorkspaceRuntime, "current" | "channelLive">;
  publish(type: string, data: unknown, fields?: EnvelopeFields): void;
  /** What `session/prompt` carries for `content` (with any context owed to the agent first). */
  agentPrompt(content: readonly acp.ContentBlock[]): acp.ContentBlock[];
  /** Fields stamped on the agent's updates while a prompt runs (its id and originator). */
  promptFields: EnvelopeFields;
}

export interface PromptQueueDeps {
  readonly maxPending: number;
  readonly deadlineMs: number | null;
  readonly logger: Logger;
  /** A prompt was admitted. */
  readonly onAdmitted: (prompt: QueuedPrompt) => void;
  /** Cancels the pending permissions of a prompt that was cancelled or ended. */
  readonly cancelPermissions: (promptId: string) => void;
  /** A prompt settled (its terminal event is out). */
  readonly onSettled: (prompt: QueuedPrompt) => void;
  /** A prompt is about to reach the agent (checkpoints take the tree's state first). */
  readonly turnStarting?: (promptId: string) => Promise<void>;
  /** The agent answered a prompt; awaited before its terminal event and before the next prompt goes out. */
  readonly turnAnswered?: (promptId: string) => Promise<void>;
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
  /**
   * Aborted by `endAll`: once the session is gone nobody waits for the agent's answer to a turn, so
   * the request (and the prompt it carries) is let go rather than kept until a wedged agent answers.
   */
  private readonly gone = new AbortController();
  /** Agent cancels still being delivered; the next `session/prompt` waits for them. */
  private readonly cancelsInFlight = new Set<Promise<void>>();
  /** The agent's answer to the last `session/prompt` sent, until it arrives (or the channel fails it). */
  private agentTurn: Promise<void> | null = null;
  /** When the daemon ended a turn the agent still runs: from then the wedge bound counts. */
  private unansweredSince: number | null = null;
  /** The last failed turn, until the next prompt starts. */
  lastTurnError: { message: string; code?: string; errorKind?: string } | null = null;

  constructor(
    private readonly host: QueueHost,
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
    if (this.closing) throw new DaemonError(404, "session_not_found", `No session with id "${this.host.id}"`, { sessionId: this.host.id });
    checkPublishable(content);
    const limit = this.deps.maxPending > 0 ? this.deps.maxPending : UNLIMITED_PENDING_CEILING;
    if (this.items.length >= limit)
      throw new DaemonError(503, "prompt_queue_full", `The session already has ${this.items.length} pending prompts`, { sessionId: this.host.id, limit, pendingCount: this.items.length }, 5);
    const bus = this.host.bus;
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
      deadline: null,
    };
    this.items.push(prompt);
    this.deps.onAdmitted(prompt);
    const deadline = this.deps.deadlineMs === null ? null : Math.min(this.deps.deadlineMs, requestDeadlineMs ?? this.deps.deadlineMs);
    if (deadline !== null) prompt.deadline = setTimeout(() => this.expire(prompt, deadline), deadline);
    if (prompt.waited)
      this.host.publish("pending_prompt_added", { sessionId: this.host.id, promptId: prompt.promptId, text: prompt.text, queuedAt: prompt.queuedAt }, this.fieldsOf(prompt));
    else void this.run(prompt);
    return admission;
  }

  /** Cancels the running prompt only (queued ones go on). */
  async cancelRunning(cancellerClientId: string | null): Promise<void> {
    const prompt = this.running;
    if (!prompt || prompt.cancelledAt !== null) return;
    prompt.cancelledAt = Date.now();
    this.host.publish("prompt_cancelled", { sessionId: this.host.id }, { promptId: prompt.promptId, ...(cancellerClientId ? { originatorClientId: cancellerClientId } : {}) });
    // ACP order: the cancel reaches the agent before its pending permissions are answered
    // `cancelled`; the other way round the agent takes the answer as a refusal and keeps going.
    const delivered = this.cancelOnAgent();
    this.deps.cancelPermissions(prompt.promptId);
    await delivered;
    // An agent that ignores the cancel does not keep the queue stuck.
    setTimeout(() => {
      if (!prompt.settled) this.settle(prompt, "turn_complete", { stopReason: "cancelled", promptCancelled: this.cancelInfo(prompt) });
    }, CANCEL_GRACE_MS).unref();
  }

  /** Ends every prompt (session closing, child gone, daemon stopping) before the session's last event. */
  endAll(code: "session_closed" | "channel_closed" | "daemon_shutdown"): void {
    this.closing = true;
    this.gone.abort();
    for (const prompt of [...this.items]) {
      if (prompt.state === "running" && code === "session_closed") {
        this.host.publish("prompt_cancelled", { sessionId: this.host.id, reason: "session_closed" }, this.fieldsOf(prompt));
        this.settle(prompt, "turn_complete", { stopReason: "cancelled", promptCancelled: this.cancelInfo(prompt) });
      } else {
        this.settle(prompt, "turn_error", { message: messageFor(code), code });
      }
    }
  }

  /** Runs one prompt to its terminal event; a fault inside the daemon ends this prompt with `turn_error`. */
  private async run(prompt: QueuedPrompt): Promise<void> {
    try {
      await this.drive(prompt);
    } catch (err) {
      this.deps.logger.error("prompt failed inside the daemon", { sessionId: this.host.id, promptId: prompt.promptId, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
      this.settle(prompt, "turn_error", { message: "the daemon could not run this prompt", code: "internal_error" });
    }
  }

  private async drive(prompt: QueuedPrompt): Promise<void> {
    prompt.state = "running";
    prompt.startedAt = Date.now();
    const host = this.host;
    // Let the admission answer go out first (the echo and the write of the prompt are the costliest
    // part of starting a turn), let the previous prompt's cancel reach the agent, and
    // let the agent end the previous turn (see the header): nothing of this prompt goes out before.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.cancelsInFlight.size > 0) await Promise.all(this.cancelsInFlight);
    const agentFree = await this.agentTurnEnded();
    if (prompt.settled) return;
    if (!agentFree) {
      this.settle(prompt, "turn_error", { message: messageFor("agent_turn_unanswered"), code: "agent_turn_unanswered" });
      return;
    }
    if (prompt.cancelledAt !== null) {
      this.settle(prompt, "turn_complete", { stopReason: "cancelled", promptCancelled: this.cancelInfo(prompt) });
      return;
    }
    this.lastTurnError = null;
    const fields = this.fieldsOf(prompt);
    host.promptFields = fields;
    if (prompt.waited) host.publish("pending_prompt_started", { sessionId: host.id, promptId: prompt.promptId, text: prompt.text }, fields);
    for (const block of prompt.content)
      host.publish("session_update", { sessionId: host.id, update: { sessionUpdate: "user_message_chunk", content: block, _meta: { serverTimestamp: Date.now(), source: "bridge-echo" } } }, fields);
    await this.deps.turnStarting?.(prompt.promptId);
    const live = prompt.settled ? null : host.runtime.current();
    if (!live) {
      await this.deps.turnAnswered?.(prompt.promptId);
      if (prompt.settled) return;
      this.settle(prompt, "turn_error", { message: messageFor("channel_closed"), code: "channel_closed" });
      return;
    }
    // Aborted only when the session ends: a turn the daemon ends early stays open on the agent
    // until it answers, and that answer is what frees the agent for the next prompt (its cancel is
    // `session/cancel`).
    const request = live.channel.request<acp.PromptResponse>(
      "session/prompt",
      { sessionId: host.agentSessionId, prompt: host.agentPrompt(prompt.content), _meta: { "svc/invocation": { version: 1, promptId: prompt.promptId } } },
      { signal: this.gone.signal },
    );
    const agentAnswered = (): void => {
      if (this.agentTurn !== answered) return;
      this.agentTurn = null;
      this.unansweredSince = null;
    };
    const noop = () => {};
    const answered: Promise<void> = request
      .then(noop, noop)
      .then(() => this.deps.turnAnswered?.(prompt.promptId))
      .catch(noop)
      .then(agentAnswered);
    this.agentTurn = answered;
    try {
      const response = await request;
      await answered;
      // Once `prompt_cancelled` is out, the turn ends `cancelled` even if the agent finished it
      // another way (it may see the cancel only after answering, as ACP SDKs dispatch
      // notifications asynchronously).
      const stopReason = prompt.cancelledAt !== null ? "cancelled" : (response?.stopReason ?? "end_turn");
      this.settle(prompt, "turn_complete", { stopReason, ...(prompt.cancelledAt !== null ? { promptCancelled: this.cancelInfo(prompt) } : {}) });
    } catch (err) {
      await answered;
      if (prompt.settled) return;
      if (!host.runtime.channelLive) {
        this.settle(prompt, "turn_error", { message: messageFor("channel_closed"), code: "channel_closed" });
        return;
      }
      const facts = err instanceof AgentRequestError ? err.facts : {};
      // The agent's details (bounded in bytes by the channel), else the error's message (an agent's is cut by the channel too).
      const message = facts.details ?? (err instanceof Error ? err.message : String(err));
      const code = err instanceof AgentRequestError ? String(err.rpcCode) : err instanceof DaemonError && err.code ? err.code : undefined;
      // The kind the agent named in its error, or the daemon's own (an answer it dropped: `output_rejected`).
      const named = err instanceof AgentRequestError ? facts.errorKind : err instanceof DaemonError ? err.fields.errorKind : undefined;
      const errorKind = AGENT_ERROR_KINDS.has(named as string) ? (named as string) : message === "terminated" ? "model_stream_interrupted" : undefined;
      this.settle(prompt, "turn_error", { message, ...(code ? { code } : {}), ...(errorKind ? { errorKind } : {}) });
    }
  }

  private expire(prompt: QueuedPrompt, deadlineMs: number): void {
    if (prompt.settled) return;
    if (prompt.state === "running") void this.cancelOnAgent();
    this.settle(prompt, "turn_error", { message: `prompt exceeded the ${deadlineMs}ms deadline`, code: "prompt_deadline_exceeded", errorKind: "prompt_deadline_exceeded" }, () =>
      this.host.publish("prompt_cancelled", { sessionId: this.host.id, reason: "prompt_deadline_exceeded" }, this.fieldsOf(prompt)),
    );
  }

  /**
   * Waits until the agent has answered the last `session/prompt` sent; false when it has not within
   * UNANSWERED_TURN_BOUND_MS of the daemon ending that turn (the session is wedged).
   */
  private async agentTurnEnded(): Promise<boolean> {
    const turn = this.agentTurn;
    if (turn === null) return true;
    const left = (this.unansweredSince ?? Date.now()) + UNANSWERED_TURN_BOUND_MS - Date.now();
    if (left <= 0) return false;
    let timer: Timer | undefined;
    const bound = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), left);
      timer.unref();
    });
    try {
      return await Promise.race([turn.then(() => true), bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Tells the agent to stop the session's turn; the next prompt is held until this is delivered. */
  private cancelOnAgent(): Promise<void> {
    const live = this.host.runtime.current();
    if (!live) return Promise.resolve();
    const delivery = live.profile.cancelPrompt(live.channel, this.host.agentSessionId).catch((err) => {
      this.deps.logger.warn("agent cancel failed", { sessionId: this.host.id, error: String(err) });
    });
    this.cancelsInFlight.add(delivery);
    void delivery.then(() => this.cancelsInFlight.delete(delivery));
    return delivery;
  }

  /**
   * Publishes the prompt's one terminal event (then `andThen`'s events, still ahead of the next
   * prompt's), removes it and starts the next.
   */
  private settle(prompt: QueuedPrompt, type: "turn_complete" | "turn_error", data: Record<string, unknown>, andThen?: () => void): void {
    if (prompt.settled) return;
    prompt.settled = true;
    if (prompt.deadline) clearTimeout(prompt.deadline);
    const fields = this.fieldsOf(prompt);
    this.host.publish(type, { sessionId: this.host.id, ...data, promptId: prompt.promptId }, fields);
    if (type === "turn_error") this.lastTurnError = { message: String(data.message), ...(data.code ? { code: String(data.code) } : {}), ...(data.errorKind ? { errorKind: String(data.errorKind) } : {}) };
    if (prompt.waited) this.host.publish("pending_prompt_completed", { sessionId: this.host.id, promptId: prompt.promptId, state: type === "turn_complete" ? "completed" : "failed" }, fields);
    andThen?.();
    this.deps.cancelPermissions(prompt.promptId);
    const index = this.items.indexOf(prompt);
    if (index !== -1) this.items.splice(index, 1);
    this.deps.onSettled(prompt);
    if (prompt.state === "running") {
      this.host.promptFields = {};
      if (this.agentTurn !== null && this.unansweredSince === null) this.unansweredSince = Date.now();
      const next = this.items[0];
      // With the agent channel gone the session is about to die: the queued prompts wait for
      // `endAll` rather than being started (echoed) on a child that can no longer take them.
      if (next && next.state === "queued" && !this.closing && this.host.runtime.channelLive) void this.run(next);
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
    case "agent_turn_unanswered":
      return `the agent has not ended an earlier turn ${UNANSWERED_TURN_BOUND_MS} ms after it was cancelled, so this prompt was not sent; close the session to start afresh`;
  }
}
