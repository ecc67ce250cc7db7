/**
 * What ties live sessions to the store: the journal each session's bus records into, and the event
 * that tells a session's clients its events are no longer being recorded.
 */
import type { EventJournal } from "../events/event-bus.ts";
import type { EventData, EventType } from "../events/event-schemas.ts";
import type { RecordingDegraded, Store } from "../store/store.ts";

/**
 * Published (with an id, so it replays) to every live session when recording stops, and to each
 * session started while it is stopped. Named after the reference daemon's event.
 */
export const RECORDING_DEGRADED_EVENT = "session_recording_degraded" satisfies EventType;

export function recordingDegradedData(sessionId: string, status: RecordingDegraded): EventData<"session_recording_degraded"> {
  return { sessionId, reason: status.reason, error: status.error, since: new Date(status.since).toISOString() };
}

/** The journal of one session's bus; the degradation notice is its marker of where recording stopped. */
export function sessionJournal(store: Store, sessionId: string, now: () => number): EventJournal {
  return {
    record: (epoch, frame, durable) => {
      const entry = { sessionId, epoch, eventId: frame.id!, envelope: frame.json, timestamp: now() };
      if (frame.type === RECORDING_DEGRADED_EVENT) store.recordStop(entry, durable);
      else store.record(entry, durable);
    },
  };
}
