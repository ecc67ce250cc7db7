/**
 * `subscribe` against a scripted host (no daemon): behaviours a real daemon does not show on
 * demand — an overlapping replay (dedupe), a frame over the bound (resync), a silent stream
 * (stall watchdog), and the backoff between failed attempts.
 */
import { describe, expect, test } from "bun:test";
import { subscribe, type ConnectionState, type SubscribeHost } from "../../src/client/subscription.ts";
import type { EventEnvelope, LoadedSession } from "../../src/client/types.ts";
import { until } from "../helpers/until.ts";

const envelope = (id: number | undefined, type = "session_update") => ({ id, v: 1, type, data: {}, _meta: { serverTimestamp: 0 } });
const frame = (id: number, type = "session_update") => `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(envelope(id, type))}\n\n`;

/** A host whose n-th events request answers `script[n]`: a body text, a status, a stream left open, or a body in a new epoch. */
function scriptedHost(script: (string | number | "open" | { body: string; epoch: string })[], loaded?: Partial<LoadedSession>) {
  const requests: Headers[] = [];
  let loads = 0;
  let servedEpoch = "e1";
  const host: SubscribeHost = {
    url: (path) => `http://stub${path}`,
    headersFor: () => ({}),
    async fetch(_url, init) {
      const headers = new Headers(init?.headers);
      requests.push(headers);
      const step = script[requests.length - 1] ?? 503;
      if (typeof step === "number") return new Response(JSON.stringify({ error: "scripted" }), { status: step });
      // An object step changes the epoch the daemon serves from then on.
      if (typeof step === "object") servedEpoch = step.epoch;
      const epoch = { "x-svc-event-epoch": servedEpoch, "content-type": "text/event-stream" };
      if (typeof step === "object") return new Response(step.body, { headers: epoch });
      if (step === "open") {
        // Never sends a byte and never ends (until aborted).
        const body = new ReadableStream({
          start(c) {
            init?.signal?.addEventListener("abort", () => c.error(new Error("aborted")));
          },
        });
        return new Response(body, { headers: epoch });
      }
      return new Response(step, { headers: epoch });
    },
    async loadSession() {
      loads++;
      return { sessionId: "s", eventEpoch: "e1", lastEventId: 9, compactedReplay: [envelope(9)], state: {}, ...loaded } as LoadedSession;
    },
  };
  return { host, requests, loads: () => loads };
}

function collect() {
  const ids: (number | undefined)[] = [];
  const states: ConnectionState[] = [];
  return { ids, states, onEvent: (e: EventEnvelope) => void ids.push(e.id), onState: (s: ConnectionState) => void states.push(s) };
}

describe("subscribe (scripted host)", () => {
  test("an event at or below the newest delivered id is not delivered twice, even if a replay overlaps", async () => {
    const { host, requests } = scriptedHost([frame(1) + frame(2) + frame(3), frame(2) + frame(3) + frame(4), "open"]);
    const got = collect();
    const sub = subscribe(host, "s", { ...got, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => got.ids.length >= 4 && requests.length >= 3, 5000, "four events");
    sub.close();
    expect(got.ids).toEqual([1, 2, 3, 4]);
    expect(requests.map((h) => h.get("last-event-id"))).toEqual(["0", "3", "4"]);
    expect(requests[1]!.get("x-svc-event-epoch")).toBe("e1");
  });

  test("a stream served in another epoch than the one asked for resyncs through load, even without a resync frame", async () => {
    const { host, requests, loads } = scriptedHost([frame(1), { body: frame(1), epoch: "e2" }, frame(2), "open"], { eventEpoch: "e2", lastEventId: 1, compactedReplay: [] });
    const got = collect();
    const sub = subscribe(host, "s", { ...got, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => got.states.includes("resynced") && got.states.lastIndexOf("live") > got.states.indexOf("resynced"), 5000, "the connection after the resynced one");
    sub.close();
    // The connection that began with the resync says so; the next plain reconnect is live again.
    expect(got.states.slice(-4)).toEqual(["resynced", "reconnecting", "live", "offline"]);
    expect(loads()).toBe(1);
    expect(got.ids).toEqual([1, 2]);
    expect(requests[2]!.get("x-svc-event-epoch")).toBe("e2");
    expect(requests[2]!.get("last-event-id")).toBe("1");
  });

  test("a frame over the bound is not delivered: the subscription resyncs through load", async () => {
    const huge = `id: 2\nevent: session_update\ndata: ${JSON.stringify({ ...envelope(2), data: { text: "x".repeat(500) } })}\n\n`;
    const { host, loads } = scriptedHost([frame(1) + huge, "open"]);
    const got = collect();
    const sub = subscribe(host, "s", { ...got, maxFrameChars: 200, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => got.states.includes("resynced"), 5000, "resynced");
    sub.close();
    expect(loads()).toBe(1);
    expect(got.ids).toEqual([1, 9]);
  });

  test("a stream that stays silent past the stall bound is dropped and reconnected", async () => {
    const { host, requests } = scriptedHost(["open", "open"]);
    const got = collect();
    const sub = subscribe(host, "s", { ...got, stallMs: 30, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => requests.length >= 2 && got.states.length >= 3, 5000, "a second connection, live");
    sub.close();
    expect(got.states.slice(0, 3)).toEqual(["live", "reconnecting", "live"]);
  });

  test("failed attempts back off exponentially up to the bound, and are reported offline after six", async () => {
    const { host, requests } = scriptedHost([503, 503, 503, 503, 503, 503, 503, 503, 503]);
    const got = collect();
    const times: number[] = [];
    const fetch = host.fetch;
    host.fetch = (url, init) => (times.push(performance.now()), fetch(url, init));
    const sub = subscribe(host, "s", { ...got, backoffBaseMs: 8, backoffMaxMs: 64 });
    await until(() => requests.length >= 9, 10_000, "nine attempts");
    const stateWhileRetrying = sub.state;
    sub.close();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Full jitter keeps each wait in [delay/2, delay]: 8, 16, 32, 64, 64, … ms.
    const bounds = [8, 16, 32, 64, 64, 64, 64, 64];
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(bounds[i]! / 2 - 1));
    expect(got.states.slice(0, 2)).toEqual(["reconnecting", "offline"]);
    expect(stateWhileRetrying).toBe("offline");
  });
});
