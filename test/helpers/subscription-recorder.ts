/**
 * Records what a client SDK subscription delivered (events with their source, states, resyncs,
 * errors); `handlers` go straight into `subscribe`.
 */
import type { ConnectionState, EventEnvelope, LoadedSession } from "../../src/client/index.ts";

export function subscriptionRecorder() {
  const events: { event: EventEnvelope; source: string }[] = [];
  const states: ConnectionState[] = [];
  const resyncs: LoadedSession[] = [];
  const errors: unknown[] = [];
  return {
    events,
    states,
    resyncs,
    errors,
    handlers: {
      onEvent: (event: EventEnvelope, ctx: { source: string }) => void events.push({ event, source: ctx.source }),
      onState: (s: ConnectionState) => void states.push(s),
      onResync: (l: LoadedSession) => void resyncs.push(l),
      onError: (e: unknown) => void errors.push(e),
    },
    /** The events of `type` (from `source` when given: `stream` or `replay`). */
    of: (type: string, source?: string) => events.filter((e) => e.event.type === type && (source === undefined || e.source === source)).map((e) => e.event),
    /** The stream's (not the replay's) turn_complete of `promptId`. */
    streamedEnd: (promptId: string) => events.find((e) => e.source === "stream" && e.event.type === "turn_complete" && e.event.data.promptId === promptId)?.event,
  };
}
