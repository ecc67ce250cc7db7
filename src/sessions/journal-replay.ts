/**
 * The bounded replay a `load` answers with: the session's newest journaled envelopes, oldest first,
 * within the baseline caps grown by what the journal growth pool lends (sessions/journal-growth.ts;
 * the rule is in config/config.ts). A `history_truncated` marker leads when older events were left
 * out. Bytes are counted as envelope text, as the journal holds it.
 */
import type { Store } from "../store/store.ts";
import { MAX_GROWTH_PER_LOAD_BYTES, type GrowthLease, type JournalGrowthPool } from "./journal-growth.ts";

export interface ReplayBaseline {
  readonly maxEvents: number;
  readonly maxBytes: number;
}

export interface Replay {
  readonly envelopes: unknown[];
  /** What this replay borrowed past the baseline; release it once the reply carrying it is sent. */
  readonly lease: GrowthLease;
}

export class JournalReplay {
  constructor(
    private readonly store: Store | null,
    private readonly baseline: ReplayBaseline,
    private readonly pool: JournalGrowthPool,
  ) {}

  read(sessionId: string): Replay {
    const lease = this.pool.borrow(MAX_GROWTH_PER_LOAD_BYTES);
    const maxBytes = this.baseline.maxBytes + lease.bytes;
    // The event cap grows with the byte cap, in proportion, so a session of many small events grows too.
    const maxEvents = Math.floor((this.baseline.maxEvents * maxBytes) / this.baseline.maxBytes);
    const { records, omitted } = this.store?.recent(sessionId, maxEvents, maxBytes) ?? { records: [], omitted: 0 };
    // Keep only what the replay holds past the baseline bytes; the rest goes back to the pool now.
    lease.shrink(records.reduce((bytes, r) => bytes + r.envelope.length, 0) - this.baseline.maxBytes);
    let envelopes: unknown[];
    try {
      envelopes = records.map((r) => withEpoch(JSON.parse(r.envelope) as unknown, r.epoch));
    } catch (err) {
      lease.release();
      throw err;
    }
    if (omitted === 0) return { envelopes, lease };
    const marker = {
      v: 1,
      type: "history_truncated",
      data: { reason: "replay_window_exceeded", truncatedEvents: omitted, retainedEvents: records.length, maxEvents, maxBytes, fullTranscriptAvailable: true },
      _meta: { serverTimestamp: Date.now() },
    };
    return { envelopes: [marker, ...envelopes], lease };
  }
}

/**
 * `envelope` with `_meta.eventEpoch` set to the epoch it was published in: a replay spans epochs
 * (each restore starts a new one, its ids from 1 again), so an id means something only with its epoch.
 */
function withEpoch(envelope: unknown, epoch: string): unknown {
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) return envelope;
  const e = envelope as { _meta?: unknown };
  const meta = typeof e._meta === "object" && e._meta !== null ? e._meta : {};
  return { ...e, _meta: { ...meta, eventEpoch: epoch } };
}
