/**
 * What a new subscriber receives before live frames, from its `Last-Event-ID` and
 * `X-Svc-Event-Epoch`, read lazily from the ring (pure: no I/O, no timers). The cursor holds ids,
 * never frames, so a subscriber that does not read costs a cursor, not a copy of the ring.
 * - no Last-Event-ID: no cursor at all (live only, no `replay_complete`);
 * - epoch given and different, or an id at/after the next id: `state_resync_required`
 *   (`epoch_reset`) first, then the whole ring;
 * - a gap the ring no longer holds: `state_resync_required` (`ring_evicted`), then what survives;
 *   the same mid-replay when the ring drops frames before a slow reader reaches them;
 * - replay past the byte budget stops (after at least one frame) with `replay_budget_exceeded`;
 * - every replay ends with `replay_complete`.
 * The replay covers the ids published before the subscription; later ones arrive live.
 */
import type { EventData } from "./event-schemas.ts";
import type { Frame } from "./frame.ts";
import type { ReplayRing } from "./replay-ring.ts";

export interface ReplayRequest {
  /** Parsed Last-Event-ID (null when absent or malformed). */
  readonly lastEventId: number | null;
  /** X-Svc-Event-Epoch the client last saw (null when absent). */
  readonly epoch: string | null;
}

export interface BusState {
  readonly epoch: string;
  readonly lastId: number;
  readonly ring: ReplayRing;
  readonly budgetBytes: number;
}

/** A stored frame, or a synthetic notice (its data typed by its event schema). */
export type ReplayStep =
  | { readonly frame: Frame }
  | { readonly type: "state_resync_required"; readonly data: EventData<"state_resync_required"> }
  | { readonly type: "replay_complete"; readonly data: EventData<"replay_complete"> };

export class ReplayCursor {
  /** Synthetic steps due before the next frame. */
  private readonly notices: ReplayStep[] = [];
  /** Next id to replay; the replay is over once it passes `untilId`. */
  private nextId: number;
  /** The newest id when the subscription began: what the replay covers. */
  private readonly untilId: number;
  private replayed = 0;
  private bytes = 0;
  private lastReplayed: number | undefined;
  private done = false;

  /** Null when the request asks for no replay (no Last-Event-ID). */
  static open(request: ReplayRequest, bus: BusState): ReplayCursor | null {
    return request.lastEventId === null ? null : new ReplayCursor(request.lastEventId, request.epoch, bus);
  }

  private constructor(
    lastEventId: number,
    epoch: string | null,
    private readonly bus: BusState,
  ) {
    this.untilId = bus.lastId;
    const oldest = bus.ring.oldestId;
    const earliestAvailableId = oldest ?? bus.lastId + 1;
    const epochMismatch = epoch !== null && epoch !== bus.epoch;
    let from = lastEventId;
    if (epochMismatch || from > bus.lastId) {
      this.notices.push({
        type: "state_resync_required",
        data: { reason: "epoch_reset", ...(epochMismatch ? { detail: "epoch_mismatch" } : {}), lastDeliveredId: from, earliestAvailableId },
      });
      from = 0;
    }
    // Last-Event-ID 0 (or a reset) means "from the oldest retained", so the ring's own eviction is no gap.
    this.nextId = from === 0 ? earliestAvailableId : from + 1;
  }

  /** The next step, or null once `replay_complete` has been handed out. */
  next(): ReplayStep | null {
    const notice = this.notices.shift();
    if (notice !== undefined) return notice;
    if (this.done) return null;
    if (this.nextId <= this.untilId) {
      const frame = this.bus.ring.at(this.nextId);
      if (frame === undefined) return this.skipEvicted();
      if (this.replayed > 0 && this.bytes + frame.bytes > this.bus.budgetBytes) {
        this.nextId = this.untilId + 1;
        return { type: "state_resync_required", data: { reason: "replay_budget_exceeded", lastDeliveredId: this.lastReplayed, earliestAvailableId: frame.id! } };
      }
      this.nextId++;
      this.replayed++;
      this.bytes += frame.bytes;
      this.lastReplayed = frame.id;
      return { frame };
    }
    this.done = true;
    return {
      type: "replay_complete",
      data: { replayedCount: this.replayed, ...(this.lastReplayed === undefined ? {} : { lastReplayedEventId: this.lastReplayed }), lastEventId: this.untilId },
    };
  }

  /** The ring no longer holds `nextId`: say so, then go on with what survives. */
  private skipEvicted(): ReplayStep {
    const earliestAvailableId = this.bus.ring.oldestId ?? this.untilId + 1;
    const lastDeliveredId = this.nextId - 1;
    this.nextId = Math.max(this.nextId, earliestAvailableId);
    return { type: "state_resync_required", data: { reason: "ring_evicted", lastDeliveredId, earliestAvailableId } };
  }
}
