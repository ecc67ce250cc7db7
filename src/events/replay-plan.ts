/**
 * What a new subscriber receives before live frames (pure), from its `Last-Event-ID` and
 * `X-Svc-Event-Epoch`:
 * - no Last-Event-ID: nothing (live only, no `replay_complete`);
 * - epoch given and different, or an id at/after the next id: `state_resync_required`
 *   (`epoch_reset`) first, then the whole ring;
 * - a gap the ring no longer holds: `state_resync_required` (`ring_evicted`), then what survives;
 * - replay past the byte budget stops (after at least one frame) with `replay_budget_exceeded`;
 * - every replay ends with `replay_complete`.
 */
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

export type ReplayStep = { readonly frame: Frame } | { readonly type: string; readonly data: Record<string, unknown> };

export function planReplay(request: ReplayRequest, bus: BusState): ReplayStep[] {
  if (request.lastEventId === null) return [];
  const steps: ReplayStep[] = [];
  const oldest = bus.ring.oldestId;
  const earliestAvailableId = oldest ?? bus.lastId + 1;
  let from = request.lastEventId;

  const epochMismatch = request.epoch !== null && request.epoch !== bus.epoch;
  if (epochMismatch || from > bus.lastId) {
    steps.push({
      type: "state_resync_required",
      data: { reason: "epoch_reset", ...(epochMismatch ? { detail: "epoch_mismatch" } : {}), lastDeliveredId: from, earliestAvailableId },
    });
    from = 0;
  } else if (from > 0 && oldest !== null && from < oldest - 1) {
    steps.push({ type: "state_resync_required", data: { reason: "ring_evicted", lastDeliveredId: from, earliestAvailableId } });
  }

  let replayed = 0;
  let bytes = 0;
  let lastReplayed: number | undefined;
  for (const frame of bus.ring.after(from)) {
    if (replayed > 0 && bytes + frame.bytes > bus.budgetBytes) {
      steps.push({ type: "state_resync_required", data: { reason: "replay_budget_exceeded", lastDeliveredId: lastReplayed, earliestAvailableId: frame.id } });
      break;
    }
    steps.push({ frame });
    bytes += frame.bytes;
    replayed++;
    lastReplayed = frame.id;
  }
  steps.push({
    type: "replay_complete",
    data: { replayedCount: replayed, ...(lastReplayed === undefined ? {} : { lastReplayedEventId: lastReplayed }), lastEventId: bus.lastId },
  });
  return steps;
}
