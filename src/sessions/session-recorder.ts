/**
 * What ties live sessions to the store: the journal each session's bus records into, and the events
 * that tell a session's clients its events are no longer being recorded (released by the bus ahead
 * of the first event recording gave up on, see event-bus.ts) and, after a stop that was to pass,
 * that they are again (`relayRecordingState`).
 */
import type { EventJournal, RecordingStop } from "../events/event-bus.ts";
import type { EventData, EventType } from "../events/event-schemas.ts";
import type { Frame } from "../events/frame.ts";
import type { Logger } from "../logging/logger.ts";
import type { RecordingDegraded, Store } from "../store/store.ts";
import type { LiveSession } from "./live-session.ts";

/**
 * Published (with an id, so it replays) to every live session when recording stops, to each
 * session started while it is stopped, and by a session's bus ahead of the first event recording
 * gave up on. Named after the reference daemon's event.
 */
export const RECORDING_DEGRADED_EVENT = "session_recording_degraded" satisfies EventType;

/** Published to a session that was told recording stopped for a while (a lock), once it works again. */
export const RECORDING_RESUMED_EVENT = "session_recording_resumed" satisfies EventType;

/** What a stop notice says when the store has stopped recording without a reason of its own (it closed). */
const STORE_CLOSED: RecordingDegraded = { reason: "unavailable", error: "the store is closed", since: 0, transient: false };

export function recordingDegradedData(sessionId: string, status: RecordingDegraded, firstUnrecordedEventId: number, unrecordedEvents: number): EventData<"session_recording_degraded"> {
  return {
    sessionId,
    reason: status.reason,
    error: status.error,
    since: new Date(status.since).toISOString(),
    transient: status.transient,
    firstUnrecordedEventId,
    unrecordedEvents,
  };
}

export function recordingResumedData(sessionId: string, stop: RecordingStop): EventData<"session_recording_resumed"> {
  return { sessionId, noticeEventId: stop.noticeId, firstUnrecordedEventId: stop.firstUnrecordedId, unrecordedEvents: stop.unrecorded };
}

/** The journal of one session's bus. */
export function sessionJournal(store: Store, sessionId: string, now: () => number): EventJournal {
  const entry = (epoch: string, frame: Frame) => ({ sessionId, epoch, eventId: frame.id!, envelope: frame.json, timestamp: now() });
  return {
    record: (epoch, frame, done) => store.record(entry(epoch, frame), done),
    stopNotice: (first, unrecorded) => ({
      type: RECORDING_DEGRADED_EVENT,
      data: recordingDegradedData(sessionId, store.degraded ?? { ...STORE_CLOSED, since: now() }, first, unrecorded),
    }),
    recordNotice: (epoch, notice) => store.recordNotice(entry(epoch, notice)),
  };
}

/**
 * Tells every live session when the store stops recording (logged too) and when it resumes after a
 * stop that was to pass (another process's lock). A stop first said to pass that turns lasting is
 * told again.
 */
export function relayRecordingState(store: Store, logger: Logger, sessions: () => Iterable<LiveSession>): void {
  let paused = false;
  store.listen({
    degraded: (status, transient) => {
      // Another process's lock: recording resumes by itself once it goes (`error` says so). Any other failure lasts until restart.
      if (transient) logger.warn("recording paused: another process holds the database's lock; events are not being journaled", { reason: status.reason, error: status.error });
      else logger.error("recording degraded: events are not being journaled", { reason: status.reason, error: status.error });
      const again = paused && !transient;
      paused = transient;
      for (const session of sessions()) session.bus.recordingStopped(again);
    },
    resumed: () => {
      paused = false;
      logger.info("recording resumed: the database's lock was released; the events missed meanwhile are marked in each journal as a recording gap");
      for (const session of sessions()) {
        const stop = session.bus.recordingResumed();
        if (stop !== null) session.publish(RECORDING_RESUMED_EVENT, recordingResumedData(session.id, stop));
      }
    },
  });
}
