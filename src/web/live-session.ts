/**
 * One open chat view's connection: loads the session (restoring a closed one, attaching to a live
 * one) with its journal replay, then follows its event stream. Events are folded into the
 * transcript model in batches, once per animation frame, so a fast stream (thousands of chunks)
 * costs one render per frame, not one per chunk.
 *
 * A load replays the newest window of the journal only (the daemon's `--max-journal-*` caps); a
 * longer session's replay leads with a `history_truncated` marker. The view then reads the events
 * the window left out from the session's transcript first, a page at a time (each page folded in
 * its own task), so a reopened session shows what was seen live, not the window's tail.
 *
 * Bounds: `MAX_QUEUED_EVENTS` events wait for a frame at most; past that (a hidden tab gets no
 * animation frames) the batch is folded at once, keeping the queue bounded. At most
 * `MAX_BACKFILL_EVENTS` left-out events are read back (pages of `BACKFILL_PAGE` events, each page at
 * most the daemon's 4 MiB); a longer history keeps the marker's notice instead.
 */
import { signal } from "@preact/signals";
import { APPROVAL_MODES, DaemonApiError, type ApprovalMode, type ConnectionState, type EventEnvelope, type LoadedSession, type SessionState, type Subscription } from "../client/index.ts";
import { client, describe, report, reportAuth } from "./app-state.ts";
import { TranscriptModel, type TranscriptSnapshot } from "./transcript-model.ts";

const MAX_QUEUED_EVENTS = 5000;
export const MAX_BACKFILL_EVENTS = 50_000;
const BACKFILL_PAGE = 500;

/** The view's connection: the stream's states, plus before the first load and a load that failed. */
export type ViewConnection = "connecting" | ConnectionState | "failed";

export interface ModelChoice {
  modelId: string;
  name: string;
}

export class LiveSession {
  readonly snapshot = signal<TranscriptSnapshot | null>(null);
  readonly connection = signal<ViewConnection>("connecting");
  /** Why the load failed (shown with the `failed` state). */
  readonly failure = signal("");
  readonly models = signal<ModelChoice[]>([]);
  /** The approval modes the agent offers (all of them when it names none). */
  readonly approvalModes = signal<readonly ApprovalMode[]>(APPROVAL_MODES);
  readonly workspaceCwd = signal<string | undefined>(undefined);
  /** The stream ended because the session is not live any more. */
  readonly gone = signal(false);
  private model = new TranscriptModel();
  /** Events waiting for the next frame, each with whether it is a resync's journal replay. */
  private queue: { event: EventEnvelope; replayed: boolean }[] = [];
  private scheduled = false;
  private subscription: Subscription | null = null;
  private stopped = false;

  constructor(readonly id: string) {}

  async start(): Promise<void> {
    let loaded: LoadedSession;
    try {
      loaded = await client.loadSession(this.id);
    } catch (error) {
      if (this.stopped) return;
      if (!reportAuth(error)) {
        this.failure.value = describe(error);
        this.connection.value = "failed";
      }
      return;
    }
    if (this.stopped) return;
    this.fresh(loaded);
    const replay = [...(loaded.compactedReplay ?? []), ...(loaded.liveJournal ?? [])];
    if (await this.backfill(replay[0], loaded)) replay.shift();
    if (this.stopped) return;
    for (const event of replay) this.model.apply(event, true);
    this.snapshot.value = this.model.snapshot();
    this.subscription = client.subscribe(this.id, {
      lastEventId: loaded.lastEventId,
      epoch: loaded.eventEpoch,
      onEvent: (event, context) => this.enqueue(event, context.source === "resync"),
      onState: (state) => (this.connection.value = state),
      // The subscription hands over the load's journal replay as events right after this; a
      // restore (the daemon restarted, the agent died) comes this way too.
      onResync: (again) => {
        this.queue = [];
        this.fresh(again);
        this.snapshot.value = this.model.snapshot();
      },
      // A 404 the subscription did not restore: the session was closed elsewhere or deleted; the
      // view says so and offers to open it again, no error banner.
      onError: (error) => {
        if (error instanceof DaemonApiError && error.status === 404) this.gone.value = true;
        else report(error);
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.close();
    this.connection.value = "offline";
  }

  /**
   * When `first` is a `history_truncated` marker, folds the events the replay left out into the
   * model, read from the transcript (oldest first: exactly the first `truncatedEvents` of it).
   * True when they all were (the marker is then dropped); false leaves a fresh model of `loaded`.
   */
  private async backfill(first: EventEnvelope | undefined, loaded: LoadedSession): Promise<boolean> {
    if (first?.type !== "history_truncated") return false;
    const data = (first.data ?? {}) as { truncatedEvents?: unknown; fullTranscriptAvailable?: unknown };
    const missing = Number(data.truncatedEvents);
    if (data.fullTranscriptAvailable !== true || !(missing > 0) || missing > MAX_BACKFILL_EVENTS) return false;
    let read = 0;
    let cursor: string | undefined;
    try {
      do {
        const page = await client.transcript(this.id, { limit: BACKFILL_PAGE, cursor });
        if (this.stopped) return false;
        for (const event of page.events.slice(0, missing - read)) this.model.apply(event, true);
        read += Math.min(page.events.length, missing - read);
        cursor = page.hasMore ? page.nextCursor : undefined;
      } while (cursor !== undefined && read < missing);
    } catch (error) {
      reportAuth(error);
    }
    if (read === missing) return true;
    this.fresh(loaded);
    return false;
  }

  /** A fresh model from a load's state (not shown yet). */
  private fresh(loaded: LoadedSession): void {
    this.workspaceCwd.value = loaded.workspaceCwd;
    this.applyState(loaded.state);
    this.model = new TranscriptModel({ modelId: currentModel(loaded.state), approvalMode: currentMode(loaded.state) });
  }

  private applyState(state: SessionState | undefined): void {
    const available = state?.models?.availableModels ?? [];
    this.models.value = available.map((m) => ({ modelId: m.modelId, name: m.name || m.modelId }));
    // An agent that lists its modes offers only those (the daemon refuses others with 409).
    const offered = new Set((state?.modes?.availableModes ?? []).map((m) => m.id));
    const modes = APPROVAL_MODES.filter((m) => offered.has(m));
    this.approvalModes.value = modes.length > 0 ? modes : APPROVAL_MODES;
  }

  private enqueue(event: EventEnvelope, replayed: boolean): void {
    this.queue.push({ event, replayed });
    if (this.queue.length >= MAX_QUEUED_EVENTS) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    for (const { event, replayed } of this.queue) this.model.apply(event, replayed);
    this.queue = [];
    this.snapshot.value = this.model.snapshot();
  }
}

const currentModel = (state: SessionState | undefined) => state?.models?.currentModelId ?? undefined;
const currentMode = (state: SessionState | undefined) => state?.modes?.currentModeId ?? undefined;
