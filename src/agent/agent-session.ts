/**
 * One ACP session of the built-in agent: its mode and model, the conversation sent to the model
 * (each new message handed to `persist`), what `proceed_always` approved, and the running turn (at
 * most one; cancel aborts it).
 */
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ApprovalMode } from "../config/agent-config.ts";
import { SessionStats } from "./session-stats.ts";

/**
 * Messages kept for the model. Overflow: the oldest are dropped, whole exchanges at a time (the
 * kept history always starts at a user message, so no tool result loses its call).
 */
export const MAX_HISTORY_MESSAGES = 400;

/** Saves a message just remembered; `history` is the whole kept conversation after it. */
export type Persist = (message: LanguageModelV4Message, history: readonly LanguageModelV4Message[]) => void;

export class AgentSession {
  readonly history: LanguageModelV4Message[] = [];
  /** What the client approved with `proceed_always` for the rest of the session: approval keys (`PreparedCall.approvalKey`). */
  readonly alwaysAllowed = new Set<string>();
  readonly stats = new SessionStats();
  /** The running turn's controller; null between turns. */
  turn: AbortController | null = null;

  constructor(
    readonly id: string,
    readonly cwd: string,
    public mode: ApprovalMode,
    public modelId: string | null,
    private readonly persist: Persist,
  ) {}

  remember(message: LanguageModelV4Message): void {
    this.keep(message);
    this.persist(message, this.history);
  }

  /** Takes back a stored conversation (not saved again). */
  restore(messages: readonly LanguageModelV4Message[]): void {
    for (const message of messages) this.keep(message);
  }

  private keep(message: LanguageModelV4Message): void {
    this.history.push(message);
    if (this.history.length <= MAX_HISTORY_MESSAGES) return;
    let start = this.history.length - MAX_HISTORY_MESSAGES;
    while (start < this.history.length && this.history[start]!.role !== "user") start++;
    this.history.splice(0, start);
  }

  cancel(): void {
    this.turn?.abort();
  }
}
