/**
 * A gap in the journal: what the writer could not record while another connection held the
 * database's write lock for longer than it may hold events back (journal-writer.ts). The events
 * themselves are gone (they were released to their subscribers unrecorded, and are not kept); what
 * is kept is, per session and epoch, how many there were and the ids of the first and last. When the
 * lock goes, each becomes one journal row, a `recording_gap` marker, before anything recorded after
 * it, so transcript, export and load say where the journal has a hole and how large it is.
 */
import type { JournalEntry } from "./journal-writer.ts";

/** The marker's envelope type (not a stream frame: only the journal and its readers carry it). */
export const RECORDING_GAP_TYPE = "recording_gap";

/**
 * Most session epochs one gap tracks. Each costs a few numbers, and only sessions that publish while
 * the lock is held add one; past the bound the gap cannot be described, so recording fails for good
 * (journal-writer.ts), as it did before gaps existed.
 */
export const MAX_GAP_SESSIONS = 4096;

/** The `data` of a `recording_gap` marker. */
export interface RecordingGapData {
  readonly sessionId: string;
  readonly reason: "locked";
  /** How many events were published and not recorded. */
  readonly notRecorded: number;
  /** The ids (in `epoch`) of the first and last of them. */
  readonly firstEventId: number;
  readonly lastEventId: number;
  /** When the first and last were published (ISO 8601). */
  readonly from: string;
  readonly until: string;
}

interface Missed {
  readonly sessionId: string;
  readonly epoch: string;
  readonly firstEventId: number;
  readonly from: number;
  lastEventId: number;
  until: number;
  count: number;
}

const missedKey = (entry: JournalEntry) => `${entry.sessionId}\n${entry.epoch}`;

export class JournalGap {
  private readonly missed = new Map<string, Missed>();

  /** Counts `entry` into the gap; false when that would pass MAX_GAP_SESSIONS (nothing is counted). */
  add(entry: JournalEntry): boolean {
    const known = this.missed.get(missedKey(entry));
    if (known !== undefined) {
      known.lastEventId = entry.eventId;
      known.until = entry.timestamp;
      known.count++;
      return true;
    }
    if (this.missed.size >= MAX_GAP_SESSIONS) return false;
    this.missed.set(missedKey(entry), {
      sessionId: entry.sessionId,
      epoch: entry.epoch,
      firstEventId: entry.eventId,
      from: entry.timestamp,
      lastEventId: entry.eventId,
      until: entry.timestamp,
      count: 1,
    });
    return true;
  }

  /**
   * Counts the notice a session's bus released ahead of the events it missed (event-bus.ts): the
   * notice took the id of the first of them and they moved up by one, so the run counted for its
   * session epoch (from that first id on) grows by one at its end. False as `add`.
   */
  addAhead(notice: JournalEntry): boolean {
    const known = this.missed.get(missedKey(notice));
    if (known === undefined) return this.add(notice);
    known.lastEventId++;
    known.count++;
    return true;
  }

  /** The journal rows that record the gap: one marker per session epoch, under the id of the last event it stands for. */
  markers(): JournalEntry[] {
    return [...this.missed.values()].map((m) => {
      const data: RecordingGapData = {
        sessionId: m.sessionId,
        reason: "locked",
        notRecorded: m.count,
        firstEventId: m.firstEventId,
        lastEventId: m.lastEventId,
        from: new Date(m.from).toISOString(),
        until: new Date(m.until).toISOString(),
      };
      const envelope = JSON.stringify({ v: 1, type: RECORDING_GAP_TYPE, data, _meta: { serverTimestamp: m.until } });
      return { sessionId: m.sessionId, epoch: m.epoch, eventId: m.lastEventId, envelope, timestamp: m.until };
    });
  }
}
