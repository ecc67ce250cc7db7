/**
 * `subscribe` and `errorFromResponse` against hosts that misbehave (no daemon): a server that never
 * answers, error bodies that are huge, endless or slow, a 200 that is not an event stream, a
 * stream that ends after each event, and a resync load still running at `close()`.
 */
import { describe, expect, test } from "bun:test";
import { errorFromResponse, MAX_ERROR_BODY_BYTES } from "../../src/client/errors.ts";
import { subscribe, type ConnectionState, type SubscribeHost } from "../../src/client/subscription.ts";
import type { LoadedSession } from "../../src/client/types.ts";
import { until } from "../helpers/until.ts";

const SSE = { "content-type": "text/event-stream", "x-svc-event-epoch": "e1" };
const frame = (id: number, type = "session_update") => `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id, v: 1, type, data: {}, _meta: { serverTimestamp: 0 } })}\n\n`;

/** A body that sends `bytes` (in 16 KiB chunks, on demand) and then neither ends nor sends more, until aborted. */
function stuckBody(bytes: number, signal?: AbortSignal | null) {
  let sent = 0;
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      signal?.addEventListener("abort", () => c.error(new Error("aborted")));
    },
    pull(c) {
      if (sent >= bytes) return new Promise(() => undefined);
      const n = Math.min(16 * 1024, bytes - sent);
      sent += n;
      pulled += n;
      c.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
}

/** A host whose events requests are answered by `answer` (n counts from 0); loads hang until aborted. */
function host(answer: (n: number, init: RequestInit | undefined) => Promise<Response>) {
  let requests = 0;
  const loadSignals: (AbortSignal | undefined)[] = [];
  const h: SubscribeHost = {
    url: (path) => `http://stub${path}`,
    headersFor: () => ({}),
    fetch: (_url, init) => answer(requests++, init),
    loadSession(_id, options) {
      loadSignals.push(options?.signal);
      return new Promise<LoadedSession>((_, reject) => options?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    },
  };
  return { host: h, requests: () => requests, loadSignals };
}

const states = () => {
  const seen: ConnectionState[] = [];
  return { seen, onState: (s: ConnectionState) => void seen.push(s), onEvent: () => undefined };
};

describe("errorFromResponse", () => {
  test(`reads at most MAX_ERROR_BODY_BYTES of an error body, then cancels it and keeps the status`, async () => {
    const body = stuckBody(64 * MAX_ERROR_BODY_BYTES);
    const error = await errorFromResponse(new Response(body.stream, { status: 503 }));
    expect(error.status).toBe(503);
    expect(error.body).toBeUndefined();
    expect(body.pulled()).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES + 32 * 1024);
  });

  test("a small JSON error body is still read whole", async () => {
    const error = await errorFromResponse(Response.json({ error: "gone", code: "session_not_found" }, { status: 404 }));
    expect([error.status, error.code, error.message]).toEqual([404, "session_not_found", "gone"]);
  });
});

describe("subscribe against a hostile host", () => {
  test("a server that accepts the request but never sends headers: the stall bound covers the wait, and it retries", async () => {
    const h = host((_n, init) => new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted")))));
    const sub = subscribe(h.host, "s", { ...states(), stallMs: 30, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => h.requests() >= 3, 5000, "retries after headers never came");
    sub.close();
  });

  test("a 503 whose body never ends (or ends too slowly) is retried, and its body is not read past the bound", async () => {
    const bodies: ReturnType<typeof stuckBody>[] = [];
    const h = host(async (n, init) => {
      // Even requests: 4 MiB and then stuck; odd ones: ten bytes and then stuck.
      const body = stuckBody(n % 2 === 0 ? 4 * 1024 * 1024 : 10, init?.signal);
      bodies.push(body);
      return new Response(body.stream, { status: 503 });
    });
    const sub = subscribe(h.host, "s", { ...states(), stallMs: 50, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => h.requests() >= 4, 5000, "four attempts");
    sub.close();
    for (const body of bodies) expect(body.pulled()).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES + 32 * 1024);
  });

  test("a 200 that is not text/event-stream is an error, never live", async () => {
    const got = states();
    const h = host(async () => new Response("<html>not a stream</html>", { headers: { "content-type": "text/html" } }));
    const sub = subscribe(h.host, "s", { ...got, backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => h.requests() >= 3, 5000, "three attempts");
    sub.close();
    expect(got.seen).not.toContain("live");
    expect(got.seen).toContain("reconnecting");
  });

  test("a stream that ends right after each event keeps backing off (reported offline after six), unless it stayed up HEALTHY_MS", async () => {
    const flapping = async (healthyMs: number | undefined) => {
      const got = states();
      const h = host(async (n) => new Response(frame(n + 1), { headers: SSE }));
      const sub = subscribe(h.host, "s", { ...got, healthyMs, backoffBaseMs: 1, backoffMaxMs: 2 });
      await until(() => h.requests() >= 9, 5000, "nine connections");
      sub.close();
      return got.seen.slice(0, -1);
    };
    expect(await flapping(undefined)).toContain("offline");
    // A connection counted healthy (healthyMs 0) starts the backoff over: never offline in between.
    expect(await flapping(0)).not.toContain("offline");
  });

  test("close() aborts the resync's load too", async () => {
    const h = host(async (n, init) =>
      n === 0 ? new Response(frame(1, "state_resync_required"), { headers: SSE }) : new Response(stuckBody(0, init?.signal).stream, { headers: SSE }),
    );
    const sub = subscribe(h.host, "s", { ...states(), backoffBaseMs: 1, backoffMaxMs: 2 });
    await until(() => h.loadSignals.length === 1, 5000, "the resync load");
    sub.close();
    expect(h.loadSignals[0]?.aborted).toBe(true);
  });
});
