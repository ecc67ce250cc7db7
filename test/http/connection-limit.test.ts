/**
 * `--max-connections` (notes §11 `listenerMaxConnections`): requests in flight and open event
 * streams share the cap. A stream holds its place from the moment it opens until it ends, whatever
 * ends it (the client leaving, the session closing), and gives it back exactly once.
 */
import { describe, expect, test } from "bun:test";
import { activeSseStreams } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession } from "../helpers/prompt-session.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { until } from "../helpers/until.ts";

const CAP = 4;

/** Status of a request that is turned away at the cap, or admitted. */
const answered = async (res: Promise<Response>) => {
  const r = await res;
  return { status: r.status, body: (await r.json()) as { code?: string; limit?: number } };
};

describe(`with --max-connections ${CAP}`, () => {
  test("open streams take their places: at the cap every other request is 503 connection_limit_exceeded", async () => {
    await using d = await fakeAgentDaemon(["--max-connections", String(CAP)]);
    await using s = await openSession(d);
    const streams: SseClient[] = [];
    try {
      for (let i = 0; i < CAP - 1; i++) streams.push(await s.events());
      // One place left: this request takes it (and status counts it as in use).
      const status = (await (await d.fetch("/daemon/status")).json()) as { runtime: { transport: { restSseActive: number } }; issues: { code: string; message: string }[] };
      expect(status.runtime.transport.restSseActive).toBe(CAP - 1);
      expect(status.issues.find((i) => i.code === "connection_capacity_high")?.message).toBe(`${CAP} of ${CAP} connections in use`);
      streams.push(await s.events());
      for (const path of ["/health", "/capabilities", `/session/${s.id}/events`]) {
        const res = await d.fetch(path);
        expect([path, res.status, res.headers.get("retry-after")]).toEqual([path, 503, "1"]);
        expect(await res.json()).toMatchObject({ code: "connection_limit_exceeded", limit: CAP });
      }
      const del = await answered(d.fetch(`/session/${s.id}`, { method: "DELETE" }));
      expect(del.status).toBe(503);
    } finally {
      for (const sse of streams) sse.close();
    }
  });

  test("a stream's place comes back when its client leaves", async () => {
    await using d = await fakeAgentDaemon(["--max-connections", String(CAP)]);
    await using s = await openSession(d);
    const streams: SseClient[] = [];
    for (let i = 0; i < CAP; i++) streams.push(await s.events());
    expect((await d.fetch("/health")).status).toBe(503);
    streams.pop()!.close();
    await until(async () => (await d.fetch("/health")).status === 200, 5000, "a place to come free");
    for (const sse of streams) sse.close();
    await until(async () => (await d.fetch("/health")).status === 200 && (await activeSseStreams(d)) === 0, 5000, "every place to come free");
  });

  test("closing the session ends its streams and frees their places", async () => {
    await using d = await fakeAgentDaemon(["--max-connections", String(CAP)]);
    const s = await openSession(d);
    const streams: SseClient[] = [];
    for (let i = 0; i < CAP - 1; i++) streams.push(await s.events());
    expect((await d.fetch(`/session/${s.id}`, { method: "DELETE" })).status).toBe(204);
    for (const sse of streams) await sse.waitForEnd();
    await until(async () => (await activeSseStreams(d)) === 0, 5000, "the streams to be released");
    // All places are free again: CAP streams of a new session open.
    await using again = await openSession(d);
    const more: SseClient[] = [];
    try {
      for (let i = 0; i < CAP - 1; i++) more.push(await again.events());
    } finally {
      for (const sse of more) sse.close();
    }
  });

  test("clients that leave at once, many times over, leak no place and release none twice", async () => {
    await using d = await fakeAgentDaemon(["--max-connections", String(CAP)]);
    await using s = await openSession(d);
    for (let round = 0; round < 10; round++) {
      const batch = await Promise.all(Array.from({ length: CAP - 1 }, () => s.events()));
      for (const sse of batch) sse.close();
      // Some never read a byte: the request is aborted as the answer comes.
      const aborts = Array.from({ length: CAP - 1 }, () => new AbortController());
      await Promise.all(aborts.map((a) => d.fetch(`/session/${s.id}/events`, { signal: a.signal }).then(() => a.abort(), () => {})));
      await until(async () => (await activeSseStreams(d)) === 0, 5000, `round ${round}: every stream released`);
    }
    // Exactly the cap is still available (a double release would admit more than CAP).
    const streams: SseClient[] = [];
    try {
      for (let i = 0; i < CAP; i++) streams.push(await s.events());
      expect((await d.fetch("/health")).status).toBe(503);
    } finally {
      for (const sse of streams) sse.close();
    }
  });

  test("at the cap an admitted origin can read the 503 (its CORS headers), its preflight is still answered, and a denied origin is still 403", async () => {
    const origin = "http://localhost:3000";
    await using d = await fakeAgentDaemon(["--max-connections", "1", "--allow-origin", origin]);
    await using s = await openSession(d);
    await using sse = await s.events();
    const busy = await d.fetch("/capabilities", { headers: { Origin: origin } });
    expect([busy.status, busy.headers.get("access-control-allow-origin"), busy.headers.get("access-control-expose-headers")]).toEqual([503, origin, expect.stringContaining("Retry-After")]);
    const preflight = await d.fetch("/session", { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST" } });
    expect([preflight.status, preflight.headers.get("access-control-allow-origin")]).toEqual([204, origin]);
    const denied = await d.fetch("/capabilities", { headers: { Origin: "http://evil.example" } });
    expect([denied.status, denied.headers.get("access-control-allow-origin")]).toEqual([403, null]);
    // Without an Origin the 503 carries no CORS headers.
    expect((await d.fetch("/capabilities")).headers.get("access-control-allow-origin")).toBeNull();
    sse.close();
  });
});
