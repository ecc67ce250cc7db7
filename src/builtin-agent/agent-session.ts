/**
 * One ACP session of the built-in agent: its mode and model, the conversation sent to the model
 * (each new message handed to `persist`), what `proceed_always` approved, and the running turn (at
 * most one; cancel aborts it).
 */
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { ApprovalMode } from "../config/agent-config.ts";
import { utf8Bytes } from "./acp-bounds.ts";
import { TokenMeter } from "./context-window.ts";
import type { PromptContext } from "./prompt-context.ts";
import { SessionStats } from "./session-stats.ts";

/**
 * Bounds of the conversation kept for the model: MAX_HISTORY_MESSAGES messages and
 * MAX_HISTORY_BYTES of their JSON. Overflow: the oldest are dropped, whole exchanges at a time (the
 * kept history always starts at a user message, so no tool result loses its call). The running
 * exchange is never dropped: when it alone is over the byte bound, `overflowing` says so and the
 * turn ends (`turn.ts`).
 */
export const MAX_HISTORY_MESSAGES = 400;
export const MAX_HISTORY_BYTES = 16 * 1024 * 1024;

/** Saves a message just remembered (`line`: its JSON); `history` is the whole kept conversation after it. */
export type Persist = (line: string, history: readonly LanguageModelV4Message[]) => void;
/** Saves the whole kept conversation in place of what was saved (after a compaction or a rewind). */
export type Rewrite = (history: readonly LanguageModelV4Message[]) => void;

export class AgentSession {
  readonly history: LanguageModelV4Message[] = [];
  /** The JSON bytes of each kept message, and their sum. */
  private readonly sizes: number[] = [];
  private bytes = 0;
  /** What the client approved with `proceed_always` for the rest of the session: approval keys (`PreparedCall.approvalKey`). */
  readonly alwaysAllowed = new Set<string>();
  readonly stats = new SessionStats();
  /** The running turn's controller; null between turns. */
  turn: AbortController | null = null;
  /** Bytes to tokens for this session's requests (`context-window.ts`). */
  readonly meter = new TokenMeter();
  /** History compactions so far (`compaction.ts`). */
  compactions = 0;
  /** The language replies are in (`svc/control/session/language`): a full name or `auto`; null: the user's setting. */
  outputLanguage: string | null = null;
  /** What the last turn's system prompt was made of (`prompt-context.ts`); null before the first turn. */
  lastContext: PromptContext | null = null;
  /** The last model request: its system prompt, its bytes, the history length it sent and the model's input count. */
  lastRequest: { system: string; bytes: number; historyLength: number; inputTokens: number | null } | null = null;

  constructor(
    readonly id: string,
    readonly cwd: string,
    public mode: ApprovalMode,
    public modelId: string | null,
    private readonly persist: Persist,
    private readonly rewrite: Rewrite = () => {},
  ) {}

  /** The JSON bytes of each kept message. */
  get messageSizes(): readonly number[] {
    return this.sizes;
  }

  /**
   * Replaces the messages before `split` (a user message's index) by `note`, put at the head of
   * that user message, and saves the result in place of the stored conversation.
   */
  compact(split: number, note: string): void {
    const first = this.history[split];
    if (!first || first.role !== "user") throw new Error("a compaction keeps the history from a user message");
    const kept = [{ ...first, content: [{ type: "text" as const, text: note }, ...first.content] }, ...this.history.slice(split + 1)];
    this.history.length = 0;
    this.sizes.length = 0;
    this.bytes = 0;
    this.restore(kept);
    this.rewrite(this.history);
  }

  /** The JSON bytes of the kept history. */
  get historyBytes(): number {
    return this.bytes;
  }

  /** Only the running exchange is left and it is over MAX_HISTORY_BYTES. */
  get overflowing(): boolean {
    return this.bytes > MAX_HISTORY_BYTES;
  }

  remember(message: LanguageModelV4Message): void {
    const line = JSON.stringify(message);
    this.keep(message, utf8Bytes(line));
    this.persist(line, this.history);
  }

  /** Takes back a stored conversation (not saved again). */
  restore(messages: readonly LanguageModelV4Message[]): void {
    for (const message of messages) this.keep(message, utf8Bytes(JSON.stringify(message)));
  }

  private keep(message: LanguageModelV4Message, size: number): void {
    this.history.push(message);
    this.sizes.push(size);
    this.bytes += size;
    let start = 0;
    let dropped = 0;
    while (this.history.length - start > MAX_HISTORY_MESSAGES || this.bytes - dropped > MAX_HISTORY_BYTES) {
      let next = start + 1;
      while (next < this.history.length && this.history[next]!.role !== "user") next++;
      if (next >= this.history.length) break; // only the running exchange is left
      for (let i = start; i < next; i++) dropped += this.sizes[i]!;
      start = next;
    }
    if (start === 0) return;
    this.history.splice(0, start);
    this.sizes.splice(0, start);
    this.bytes -= dropped;
  }

  /** Saves the whole kept conversation in place of what was saved (a branch's copy). */
  save(): void {
    this.rewrite(this.history);
  }

  /** Drops the messages from index `at` on (a rewind) and saves what is left; returns how many went. */
  truncate(at: number): number {
    const removed = this.history.length - at;
    this.history.splice(at);
    for (const size of this.sizes.splice(at)) this.bytes -= size;
    this.rewrite(this.history);
    return removed;
  }

  cancel(): void {
    this.turn?.abort();
  }
}
