/**
 * The chat view's state, folded from a session's event envelopes (the stream's and the load
 * journal's alike). Pure: no DOM, no fetch; `apply` mutates, `snapshot` hands the view a fresh
 * array in which only the items that changed since the last snapshot are new objects (so the view
 * re-renders just those).
 *
 * Bound: at most `MAX_ITEMS` transcript items are kept; older ones are dropped and counted in
 * `dropped` (the view says so; `/session/:id/transcript` still has them).
 */
import type { EventEnvelope } from "../client/types.ts";

export const MAX_ITEMS = 400;

export interface PlanEntry {
  content: string;
  status: string;
  priority?: string;
}

export interface DiffContent {
  type: "diff";
  path: string;
  oldText: string | null;
  newText: string;
}

export type ToolContent = DiffContent | { type: "text"; text: string } | { type: "terminal"; terminalId: string };

export type ToolStatus = "pending" | "in_progress" | "completed" | "failed";

/** A file a tool call touches (ACP `locations`). */
export interface ToolLocation {
  path: string;
  line?: number;
}

export type Item =
  | { kind: "user"; key: string; text: string }
  | { kind: "agent"; key: string; text: string; promptId: string | undefined }
  | { kind: "thought"; key: string; text: string; promptId: string | undefined }
  | { kind: "plan"; key: string; entries: PlanEntry[] }
  | {
      kind: "tool";
      key: string;
      toolCallId: string;
      title: string;
      status: ToolStatus;
      toolKind: string | undefined;
      content: ToolContent[];
      /** The call's input as the agent reported it (`rawInput`), for the permission dialog. */
      rawInput: unknown;
      locations: ToolLocation[];
      /** The agent's name for the tool, when it says (`_meta.toolName`). */
      toolName: string | undefined;
      /** Server times (ms) of its first update and of the update that finished it. */
      startedAt: number | undefined;
      endedAt: number | undefined;
    }
  | { kind: "turn"; key: string; stopReason: string; ms: number | undefined; /** The turn's prompt (what a rewind names), when the event said. */ promptId: string | undefined }
  | { kind: "error"; key: string; message: string; /** A turn's failure (its stop), with how long it ran. */ turn?: { ms: number | undefined } }
  | { kind: "notice"; key: string; text: string };

export type ToolItem = Extract<Item, { kind: "tool" }>;

export interface PermissionOption {
  optionId: string;
  name: string;
  kind?: string;
}

/**
 * A permission request with what it would run: the request's tool call merged over the call's
 * earlier updates (an agent may send the details once, on `tool_call`, and only the id here).
 */
export interface PendingPermission {
  requestId: string;
  title: string;
  options: PermissionOption[];
  toolKind: string | undefined;
  toolName: string | undefined;
  rawInput: unknown;
  locations: ToolLocation[];
  content: ToolContent[];
}

export interface QueuedPrompt {
  promptId: string;
  text: string;
}

export interface TranscriptSnapshot {
  items: Item[];
  dropped: number;
  permissions: PendingPermission[];
  queued: QueuedPrompt[];
  /** A turn is running (the Cancel button's state). */
  running: boolean;
  /** Server time (ms) the running turn started, when known. */
  runningSince: number | undefined;
  /** The running turn's latest output is the agent's thinking. */
  thinking: boolean;
  /** The first prompt's text (the session's title until it has a name). */
  firstPrompt: string | undefined;
  modelId: string | undefined;
  approvalMode: string | undefined;
  displayName: string | undefined;
  /** The session ended (closed or died) while it was followed live; no more events will come. */
  ended: string | undefined;
}

/** What a `permission_request_refused` says of the request. */
const refusedText = (data: Record<string, unknown>): string =>
  data.reason === "too_many_options"
    ? `The agent asked for permission with ${Number(data.options)} options (at most ${Number(data.limit)} are accepted)`
    : `The agent asked for permission with an option id of ${Number(data.bytes)} bytes (at most ${Number(data.limit)} are accepted)`;

/** A rewind as the transcript tells it (`session_rewound`): what was put back, what was not. */
function rewoundText(data: Record<string, unknown>): string {
  const changed = Array.isArray(data.filesChanged) ? data.filesChanged.length : 0;
  const failed = Array.isArray(data.filesFailed) ? data.filesFailed.map(String) : [];
  const files = `${changed} file${changed === 1 ? "" : "s"} put back${failed.length > 0 ? `, not put back: ${failed.join(", ")}` : ""}`;
  return `Rewound to before a turn: ${files}${data.conversationRewound === true ? "; the conversation goes on from before that turn." : "."}`;
}

const text = (block: unknown): string => {
  const b = block as { type?: string; text?: unknown } | null;
  return b && b.type === "text" && typeof b.text === "string" ? b.text : "";
};

function toolContent(raw: unknown): ToolContent[] {
  if (!Array.isArray(raw)) return [];
  const out: ToolContent[] = [];
  for (const c of raw as Record<string, any>[]) {
    if (c?.type === "diff" && typeof c.path === "string" && typeof c.newText === "string") {
      out.push({ type: "diff", path: c.path, oldText: typeof c.oldText === "string" ? c.oldText : null, newText: c.newText });
    } else if (c?.type === "content") {
      const t = text(c.content);
      if (t) out.push({ type: "text", text: t });
    } else if (c?.type === "terminal" && typeof c.terminalId === "string") out.push({ type: "terminal", terminalId: c.terminalId });
  }
  return out;
}

function toolLocations(raw: unknown): ToolLocation[] {
  if (!Array.isArray(raw)) return [];
  const out: ToolLocation[] = [];
  for (const l of raw as Record<string, unknown>[]) {
    if (typeof l?.path !== "string") continue;
    out.push(typeof l.line === "number" ? { path: l.path, line: l.line } : { path: l.path });
  }
  return out;
}

const STATUSES = new Set(["pending", "in_progress", "completed", "failed"]);

export class TranscriptModel {
  private items: Item[] = [];
  private dropped = 0;
  private seq = 0;
  private readonly tools = new Map<string, number>();
  private readonly permissions = new Map<string, PendingPermission>();
  private readonly queued = new Map<string, QueuedPrompt>();
  /** Prompts that started (or were queued) and have not ended. */
  private readonly active = new Set<string>();
  private readonly finished = new Set<string>();
  private modelId: string | undefined;
  private approvalMode: string | undefined;
  private displayName: string | undefined;
  private ended: string | undefined;
  /** Server time each active prompt was first seen. */
  private readonly startedAt = new Map<string, number>();
  private firstPrompt: string | undefined;
  private now = 0;

  constructor(initial: { modelId?: string; approvalMode?: string; displayName?: string } = {}) {
    this.modelId = initial.modelId;
    this.approvalMode = initial.approvalMode;
    this.displayName = initial.displayName;
  }

  snapshot(): TranscriptSnapshot {
    const last = this.items[this.items.length - 1];
    const running = this.active.size > 0;
    return {
      items: this.items.slice(),
      dropped: this.dropped,
      permissions: [...this.permissions.values()],
      queued: [...this.queued.values()],
      running,
      runningSince: running ? this.earliestStart() : undefined,
      thinking: running && last?.kind === "thought",
      firstPrompt: this.firstPrompt,
      modelId: this.modelId,
      approvalMode: this.approvalMode,
      displayName: this.displayName,
      ended: this.ended,
    };
  }

  private earliestStart(): number | undefined {
    let min: number | undefined;
    for (const p of this.active) {
      const at = this.startedAt.get(p);
      if (at !== undefined && (min === undefined || at < min)) min = at;
    }
    return min;
  }

  private push(item: Item): void {
    this.items.push(item);
    if (this.items.length > MAX_ITEMS) {
      const cut = this.items.length - MAX_ITEMS;
      this.items.splice(0, cut);
      this.dropped += cut;
      this.tools.clear();
      this.items.forEach((it, i) => it.kind === "tool" && this.tools.set(it.toolCallId, i));
    }
    if (item.kind === "tool") this.tools.set(item.toolCallId, this.items.length - 1);
  }

  private key(): string {
    return `i${++this.seq}`;
  }

  private appendText(kind: "agent" | "thought", chunk: string, promptId: string | undefined): void {
    const last = this.items[this.items.length - 1];
    if (last && last.kind === kind && last.promptId === promptId) {
      this.items[this.items.length - 1] = { ...last, text: last.text + chunk };
    } else this.push({ kind, key: this.key(), text: chunk, promptId });
  }

  private promptStarted(promptId: string | undefined): void {
    if (!promptId || this.finished.has(promptId)) return;
    this.active.add(promptId);
    if (!this.startedAt.has(promptId)) this.startedAt.set(promptId, this.now);
  }

  /** Ends a prompt; returns how long it ran (ms), when its start was seen. */
  private promptEnded(promptId: string | undefined): number | undefined {
    if (!promptId) return undefined;
    const started = this.startedAt.get(promptId);
    this.startedAt.delete(promptId);
    this.active.delete(promptId);
    this.queued.delete(promptId);
    this.finished.add(promptId);
    return started === undefined ? undefined : Math.max(0, this.now - started);
  }

  /**
   * Folds one event. `replayed`: it comes from a load's journal replay, i.e. it is history of a
   * session the daemon just loaded, which is live now: a replayed `session_closed`/`session_died`
   * ends what was running then, but does not mark the session ended.
   */
  apply(event: EventEnvelope, replayed = false): void {
    const data = (event.data ?? {}) as Record<string, any>;
    const at = event._meta?.serverTimestamp;
    if (typeof at === "number") this.now = at;
    switch (event.type) {
      case "session_update":
        this.promptStarted(event.promptId);
        this.update(data.update ?? {}, event.promptId);
        break;
      case "turn_complete": {
        const promptId = data.promptId ?? event.promptId;
        if (promptId && this.finished.has(promptId)) break;
        const ms = this.promptEnded(promptId);
        this.push({ kind: "turn", key: this.key(), stopReason: typeof data.stopReason === "string" ? data.stopReason : "end_turn", ms, promptId: typeof promptId === "string" ? promptId : undefined });
        break;
      }
      case "turn_error": {
        const ms = this.promptEnded(data.promptId ?? event.promptId);
        this.push({ kind: "error", key: this.key(), message: String(data.message ?? "turn failed"), turn: { ms } });
        break;
      }
      case "pending_prompt_added":
        this.queued.set(data.promptId, { promptId: data.promptId, text: String(data.text ?? "") });
        this.promptStarted(data.promptId);
        break;
      case "pending_prompt_started":
        this.queued.delete(data.promptId);
        this.promptStarted(data.promptId);
        break;
      case "pending_prompt_completed":
        this.queued.delete(data.promptId);
        break;
      case "permission_request": {
        const toolCall = (data.toolCall ?? {}) as Record<string, any>;
        const options: PermissionOption[] = (Array.isArray(data.options) ? data.options : []).map((o: any) => ({
          optionId: String(o.optionId),
          name: typeof o.name === "string" ? o.name : String(o.optionId),
          kind: typeof o.kind === "string" ? o.kind : undefined,
        }));
        const merged = typeof toolCall.toolCallId === "string" ? this.tool({ ...toolCall, sessionUpdate: "tool_call_update" }) : this.tool({ ...toolCall, toolCallId: "" }, false);
        const { title, toolKind, toolName, rawInput, locations, content } = merged;
        this.permissions.set(data.requestId, { requestId: data.requestId, title, options, toolKind, toolName, rawInput, locations, content });
        break;
      }
      case "permission_resolved":
      case "permission_forbidden":
        this.permissions.delete(data.requestId);
        break;
      case "model_switched":
        this.modelId = data.modelId;
        break;
      case "model_switch_failed":
        this.push({ kind: "error", key: this.key(), message: `Model switch to ${data.requestedModelId} failed: ${data.error}` });
        break;
      case "approval_mode_changed":
        this.approvalMode = data.next;
        break;
      case "session_metadata_updated":
        if (typeof data.displayName === "string") this.displayName = data.displayName;
        break;
      case "session_closed":
      case "session_died":
        if (!replayed) this.ended = String(data.reason ?? "closed");
        this.active.clear();
        this.permissions.clear();
        this.queued.clear();
        break;
      case "history_truncated":
        this.push({ kind: "notice", key: this.key(), text: `${data.truncatedEvents} earlier events are not shown.` });
        break;
      case "session_rewound":
        this.push({ kind: "notice", key: this.key(), text: rewoundText(data) });
        break;
      case "agent_output_rejected":
        this.push({ kind: "notice", key: this.key(), text: `The agent wrote a message of ${Number(data.bytes)} bytes, over the daemon's ${Number(data.limit)}-byte line limit; it was dropped.` });
        break;
      case "permission_request_refused":
        this.push({ kind: "notice", key: this.key(), text: `${refusedText(data)}; the daemon refused it without asking you.` });
        break;
      case "session_recording_degraded":
        this.push({ kind: "notice", key: this.key(), text: `The daemon stopped recording this session (${String(data.reason ?? "unknown")}): what follows may be missing from its history.` });
        break;
      case "session_recording_resumed":
        this.push({ kind: "notice", key: this.key(), text: `The daemon records this session again; ${Number(data.unrecordedEvents)} events before this are missing from its history.` });
        break;
      // A journal-only marker (src/store/journal-gap.ts): a load's replay carries it where events went unrecorded.
      case "recording_gap":
        this.push({ kind: "notice", key: this.key(), text: `${Number(data.notRecorded)} events were not recorded here (ids ${Number(data.firstEventId)} to ${Number(data.lastEventId)}).` });
        break;
      default:
        break;
    }
  }

  private update(u: Record<string, any>, promptId: string | undefined): void {
    // A subagent's messages (`_meta.parentToolCallId`: sent under a `task` call) are not the agent's reply.
    if (typeof u._meta?.parentToolCallId === "string" && /_message_chunk$|_thought_chunk$/.test(String(u.sessionUpdate))) return;
    switch (u.sessionUpdate) {
      case "user_message_chunk": {
        const t = text(u.content);
        const last = this.items[this.items.length - 1];
        // The daemon echoes each prompt once; a replayed agent may also send the user's text in chunks.
        if (last && last.kind === "user" && u._meta?.source !== "bridge-echo") this.items[this.items.length - 1] = { ...last, text: last.text + t };
        else this.push({ kind: "user", key: this.key(), text: t });
        this.firstPrompt ??= t;
        break;
      }
      case "agent_message_chunk":
        this.appendText("agent", text(u.content), promptId);
        break;
      case "agent_thought_chunk":
        this.appendText("thought", text(u.content), promptId);
        break;
      case "plan": {
        const entries: PlanEntry[] = (Array.isArray(u.entries) ? u.entries : []).map((e: any) => ({
          content: String(e?.content ?? ""),
          status: String(e?.status ?? "pending"),
          priority: typeof e?.priority === "string" ? e.priority : undefined,
        }));
        const last = this.items[this.items.length - 1];
        if (last && last.kind === "plan") this.items[this.items.length - 1] = { ...last, entries };
        else this.push({ kind: "plan", key: this.key(), entries });
        break;
      }
      case "tool_call":
      case "tool_call_update":
        this.tool(u);
        break;
      case "current_mode_update":
        if (typeof u.currentModeId === "string") this.approvalMode = u.currentModeId;
        break;
      default:
        break;
    }
  }

  /**
   * Folds a `tool_call`/`tool_call_update` into its item (fields the update leaves out keep their
   * value) and returns the merged item; with `record` false it only returns what the update says.
   */
  private tool(u: Record<string, any>, record = true): ToolItem {
    const id = String(u.toolCallId ?? "");
    const index = record ? this.tools.get(id) : undefined;
    const prev = index === undefined ? undefined : this.items[index];
    const base = prev && prev.kind === "tool" ? prev : undefined;
    const status: ToolStatus = STATUSES.has(u.status) ? u.status : (base?.status ?? "pending");
    const next: ToolItem = {
      kind: "tool",
      key: base?.key ?? (record ? this.key() : ""),
      toolCallId: id,
      title: typeof u.title === "string" && u.title ? u.title : (base?.title ?? "Tool call"),
      status,
      toolKind: typeof u.kind === "string" ? u.kind : base?.toolKind,
      content: Array.isArray(u.content) ? toolContent(u.content) : (base?.content ?? []),
      rawInput: u.rawInput !== undefined ? u.rawInput : base?.rawInput,
      locations: Array.isArray(u.locations) ? toolLocations(u.locations) : (base?.locations ?? []),
      toolName: typeof u._meta?.toolName === "string" ? u._meta.toolName : base?.toolName,
      startedAt: base?.startedAt ?? (record ? this.now : undefined),
      endedAt: base?.endedAt ?? (record && (status === "completed" || status === "failed") ? this.now : undefined),
    };
    if (!record) return next;
    if (index === undefined) this.push(next);
    else this.items[index] = next;
    return next;
  }
}
