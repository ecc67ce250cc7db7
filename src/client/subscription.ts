/**
 * `subscribe`: a session's event stream over fetch (not EventSource, which cannot send the bearer).
 *
 * - Resume: every (re)connect sends `Last-Event-ID` (the newest id delivered; `0` on a first
 *   connect, which replays the whole ring) and `X-Svc-Event-Epoch` (the epoch the ids count in,
 *   once the daemon named one). Events with an id at or below the newest delivered one in the same
 *   epoch are dropped, so a reconnect never delivers an event twice.
 * - Reconnect: a dropped connection, a network error, a 5xx or a 2xx that is not an event stream
 *   is retried with exponential backoff and full jitter (`BACKOFF_BASE_MS` doubling to
 *   `BACKOFF_MAX_MS`, forever, until `close()`); the backoff starts over only after a connection
 *   stayed up for `HEALTHY_MS` (a stream that ends right after each event keeps backing off).
 *   A 4xx (401 token, 404 deleted session, …) ends the subscription as `offline` with the error;
 *   one the daemon calls retryable (409 `restore_in_progress`) is retried like a 5xx.
 *   A request that brings nothing for `STALL_MS` — no response headers, no error body, not even
 *   the daemon's 15 s heartbeat comment on the stream — is treated as dropped.
 * - `close()` aborts every request the subscription has running (the stream and a resync's load).
 * - Resync: on `state_resync_required`, an epoch change or a frame dropped by the parser's bound,
 *   it reloads the session through `POST /session/:id/load`, hands the consumer `onResync` (reset
 *   your view) and then the load's bounded journal replay as events, and resumes the stream after
 *   the load's `lastEventId` in its epoch (the dedupe starts over: a new epoch counts from 1).
 * - Restore: a 404 with `restorable: true` (the daemon restarted, the agent died, or the session
 *   was closed before this subscription began) is a resync too: the load brings the session back
 *   and the stream goes on. The first restore since the last healthy connection goes at once (the
 *   daemon answered, so it is up); a session that 404s again after it waits out the backoff like a
 *   failed reconnect, so a session that cannot stay live is not restored in a hot loop. Not
 *   restored: a 404 without `restorable` (deleted), any 404 after this stream carried
 *   `session_closed` or, once this subscription has been live, one whose `persistedState` is
 *   `closed` (a client closed it on purpose, perhaps while this one was away: bringing it back
 *   would undo that), and every 404 with `restore: false`.
 * - State: `offline` (not connected yet, ended, or six attempts failed in a row), `live`,
 *   `reconnecting` (between attempts), `resynced` (live on a connection that began with a resync).
 */
import { DaemonApiError, errorFromResponse } from "./errors.ts";
import { MAX_FRAME_CHARS, SseParser } from "./sse-parser.ts";
import type { EventEnvelope, LoadedSession } from "./types.ts";

export type ConnectionState = "live" | "reconnecting" | "resynced" | "offline";

export interface EventContext {
  /** `stream` for frames off the SSE stream, `resync` for the load journal's replay. */
  source: "stream" | "resync";
}

export interface SubscribeOptions {
  onEvent(event: EventEnvelope, context: EventContext): void;
  onState?(state: ConnectionState): void;
  /** The view must reset: the journal replay (as `onEvent` calls) follows. */
  onResync?(loaded: LoadedSession): void;
  /** Why the subscription ended for good (`offline`): a 4xx on the stream or on the resync's load. */
  onError?(error: unknown): void;
  /** Bring the session back through a load when the stream answers 404 `restorable` (default true); false: that 404 ends the subscription. */
  restore?: boolean;
  /** The newest id the caller already has (e.g. from a load it did itself); default: replay the ring. */
  lastEventId?: number;
  /** The epoch `lastEventId` counts in. */
  epoch?: string;
  /** Frame bound handed to the parser (default `MAX_FRAME_CHARS`). */
  maxFrameChars?: number;
  /** Backoff bounds (tests shorten them). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  stallMs?: number;
  healthyMs?: number;
}

export interface Subscription {
  close(): void;
  readonly state: ConnectionState;
  /** The newest event id delivered and its epoch. */
  readonly position: { lastEventId: number; epoch: string | undefined };
}

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 10_000;
/** How long frames of one read are delivered before the reader yields to the event loop. */
export const TIME_SLICE_MS = 10;
/** Three missed heartbeats (`HEARTBEAT_MS` is 15 s on the daemon). */
export const STALL_MS = 45_000;
/** How long a connection must stay up before the backoff starts over. */
export const HEALTHY_MS = 10_000;

/** What a subscription needs from a client. */
export interface SubscribeHost {
  url(path: string): string;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  headersFor(sessionId?: string): Record<string, string>;
  loadSession(id: string, options?: { signal?: AbortSignal }): Promise<LoadedSession>;
}

/** A 4xx the same request cannot outgrow (408, 429 and the ones the daemon calls retryable are worth retrying). */
const isFinal = (error: DaemonApiError) => error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429 && !error.retryable;

/** The stream's 404 for a session that is persisted but not live: a load brings it back. */
const isRestorable = (error: unknown) => error instanceof DaemonApiError && error.status === 404 && error.body?.restorable === true;

/** The 404 says a client (or the idle reaper) closed the session, rather than its daemon or agent going away. */
const wasClosed = (error: unknown) => error instanceof DaemonApiError && error.body?.persistedState === "closed";

/** Thrown inside the read loop when the stream must be replaced by a resync. */
class ResyncNeeded extends Error {}

export function subscribe(host: SubscribeHost, sessionId: string, o: SubscribeOptions): Subscription {
  const baseMs = o.backoffBaseMs ?? BACKOFF_BASE_MS;
  const maxMs = o.backoffMaxMs ?? BACKOFF_MAX_MS;
  const stallMs = o.stallMs ?? STALL_MS;
  const healthyMs = o.healthyMs ?? HEALTHY_MS;
  let lastEventId = o.lastEventId ?? 0;
  let epoch = o.epoch;
  let state: ConnectionState = "offline";
  let closed = false;
  let resynced = false;
  let attempt = 0;
  /** A `session_closed` came on the stream since the last load: the session's 404 is final. */
  let closedOnPurpose = false;
  /** A connection of this subscription went live: from then on a session found closed stays closed. */
  let everLive = false;
  /** A restore was made since the last healthy connection: the next one waits out the backoff. */
  let restoredSinceHealthy = false;
  /** Aborted by `close()`: every request of the subscription listens to it. */
  const life = new AbortController();
  /** When the current connection went live (undefined while not live). */
  let liveSince: number | undefined;
  let wake: (() => void) | null = null;

  const setState = (next: ConnectionState) => {
    if (next === state) return;
    state = next;
    o.onState?.(next);
  };

  const deliver = (event: EventEnvelope, source: EventContext["source"]) => {
    if (typeof event.id === "number") {
      if (event.id <= lastEventId) return;
      lastEventId = event.id;
    }
    if (event.type === "session_closed") closedOnPurpose = true;
    o.onEvent(event, { source });
  };

  /** One connection: resolves when it ends normally, throws ResyncNeeded or the failure. */
  async function connect(): Promise<void> {
    const ctl = new AbortController();
    const stop = () => ctl.abort();
    life.signal.addEventListener("abort", stop);
    const headers: Record<string, string> = { ...host.headersFor(sessionId), accept: "text/event-stream", "last-event-id": String(lastEventId) };
    if (epoch !== undefined) headers["x-svc-event-epoch"] = epoch;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(stall);
      stall = setTimeout(stop, stallMs);
    };
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      // Armed from the start: the wait for response headers (and an error body) is bounded too.
      arm();
      const res = await host.fetch(host.url(`/session/${encodeURIComponent(sessionId)}/events`), { headers, signal: ctl.signal });
      if (!res.ok) throw await errorFromResponse(res);
      const type = res.headers.get("content-type") ?? "";
      if (!/^text\/event-stream\b/i.test(type)) throw new Error(`the event stream answered ${res.status} with content type "${type}", not an event stream`);
      const served = res.headers.get("x-svc-event-epoch") ?? undefined;
      if (epoch !== undefined && served !== undefined && served !== epoch) throw new ResyncNeeded();
      if (served !== undefined) epoch = served;
      if (!res.body) throw new Error("event stream without a body");
      // `resynced` names this connection only: the next one (without a resync) is plain `live`.
      setState(resynced ? "resynced" : "live");
      liveSince = Date.now();
      everLive = true;
      resynced = false;
      const parser = new SseParser(o.maxFrameChars ?? MAX_FRAME_CHARS);
      const decoder = new TextDecoder();
      reader = res.body.getReader();
      arm();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        arm();
        let sliceStart = Date.now();
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          // A big chunk (a replay) holds thousands of frames: yield now and then so the host
          // (a page) keeps responding while they are delivered.
          if (Date.now() - sliceStart >= TIME_SLICE_MS) {
            await new Promise((resolve) => setTimeout(resolve, 0));
            sliceStart = Date.now();
            if (closed) return;
          }
          let envelope: EventEnvelope;
          try {
            envelope = JSON.parse(frame.data) as EventEnvelope;
          } catch {
            throw new ResyncNeeded();
          }
          if (envelope.type === "state_resync_required") throw new ResyncNeeded();
          deliver(envelope, "stream");
          if (closed) return;
        }
        if (parser.droppedFrames > 0) throw new ResyncNeeded();
      }
    } finally {
      clearTimeout(stall);
      life.signal.removeEventListener("abort", stop);
      ctl.abort();
      try {
        reader?.releaseLock();
      } catch {
        // the aborted body may already have released it
      }
    }
  }

  async function resync(): Promise<void> {
    const loaded = await host.loadSession(sessionId, { signal: life.signal });
    if (closed) return;
    closedOnPurpose = false;
    o.onResync?.(loaded);
    lastEventId = 0;
    epoch = loaded.eventEpoch;
    for (const event of [...(loaded.compactedReplay ?? []), ...(loaded.liveJournal ?? [])]) {
      o.onEvent(event, { source: "resync" });
      const inEpoch = event._meta?.eventEpoch === undefined || event._meta.eventEpoch === loaded.eventEpoch;
      if (typeof event.id === "number" && inEpoch && event.id > lastEventId) lastEventId = event.id;
    }
    lastEventId = Math.max(lastEventId, loaded.lastEventId);
    resynced = true;
  }

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  async function run(): Promise<void> {
    let needResync = false;
    while (!closed) {
      let restoreNow = false;
      try {
        if (needResync) {
          await resync();
          needResync = false;
        }
        if (!closed) await connect();
      } catch (error) {
        if (closed) break;
        if (error instanceof ResyncNeeded) needResync = true;
        else if (o.restore !== false && !closedOnPurpose && isRestorable(error) && !(everLive && wasClosed(error))) {
          needResync = true;
          restoreNow = !restoredSinceHealthy;
          restoredSinceHealthy = true;
        } else if (error instanceof DaemonApiError && isFinal(error)) {
          closed = true;
          setState("offline");
          o.onError?.(error);
          break;
        }
      }
      if (closed) break;
      // Only a connection that stayed up a while proves the daemon healthy again.
      if (liveSince !== undefined && Date.now() - liveSince >= healthyMs) {
        attempt = 0;
        restoredSinceHealthy = false;
      }
      liveSince = undefined;
      if (restoreNow) continue;
      // Six failed attempts in a row (about 8 s of backoff): say so honestly, and keep trying.
      setState(attempt >= 6 ? "offline" : "reconnecting");
      const delay = Math.min(maxMs, baseMs * 2 ** attempt);
      attempt++;
      await pause(delay / 2 + Math.random() * (delay / 2));
    }
    setState("offline");
  }

  void run();

  return {
    close() {
      closed = true;
      life.abort();
      wake?.();
      setState("offline");
    },
    get state() {
      return state;
    },
    get position() {
      return { lastEventId, epoch };
    },
  };
}
