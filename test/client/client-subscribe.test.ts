/**
 * The client SDK's event stream against a real daemon (fake agent child): the bearer, client id
 * and Last-Event-ID it sends, reconnecting after a dropped connection without losing or repeating
 * an event, and the resync through `POST /session/:id/load` (epoch change, evicted ring). Restores
 * after a restart or a crash: subscription-restore.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { createClient, DaemonApiError, type EventEnvelope } from "../../src/client/index.ts";
import { contractFetch, frameChecker } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { subscriptionRecorder } from "../helpers/subscription-recorder.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "client-subscribe-token";
/** Short backoff so reconnects happen at once in tests. */
const FAST = { backoffBaseMs: 10, backoffMaxMs: 50 };

/**
 * A fetch through the contract check that records each request and can cut the event stream
 * currently open (the client sees its connection drop mid-stream).
 */
function cuttableFetch() {
  const sent: { url: string; method: string; headers: Headers }[] = [];
  let cutCurrent: (() => void) | null = null;
  const fetch = async (url: string, init?: RequestInit) => {
    sent.push({ url, method: init?.method ?? "GET", headers: new Headers(init?.headers) });
    const res = await contractFetch(url, init);
    if (!url.includes("/events") || !res.body) return res;
    const reader = res.body.getReader();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      async pull(c) {
        const { done, value } = await reader.read();
        if (done) c.close();
        else c.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    cutCurrent = () => {
      controller.error(new Error("connection cut by the test"));
      void reader.cancel();
    };
    return new Response(body, { status: res.status, headers: res.headers });
  };
  return { sent, fetch, cut: () => cutCurrent?.(), eventRequests: () => sent.filter((r) => r.url.includes("/events")) };
}

const ended = (events: EventEnvelope[], promptId: string) => events.some((e) => e.type === "turn_complete" && e.data.promptId === promptId);

describe("client SDK subscribe", () => {
  test("streams a prompt's events with the bearer, the client id and Last-Event-ID 0; frames match the contract", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN]);
    const net = cuttableFetch();
    const c = createClient({ baseUrl: d.url, token: TOKEN, fetch: net.fetch });
    const { sessionId, clientId } = await c.createSession({ sessionScope: "thread" });
    const check = await frameChecker(`${d.url}/session/${sessionId}/events`);
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, onEvent: (e, ctx) => (check?.(e), r.handlers.onEvent(e, ctx)) });
    try {
      await until(() => sub.state === "live", 5000, "live");
      const { promptId } = await c.prompt(sessionId, "@stream 5\n@say done");
      await until(() => ended(r.events.map((e) => e.event), promptId), 10_000, "turn_complete");
      expect(r.of("session_update").filter((e) => e.data.update.sessionUpdate === "agent_message_chunk")).toHaveLength(6);
      const [req] = net.eventRequests();
      expect(req!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
      expect(req!.headers.get("x-svc-client-id")).toBe(clientId);
      expect(req!.headers.get("last-event-id")).toBe("0");
      expect(req!.headers.get("accept")).toBe("text/event-stream");
      expect(sub.position.epoch).toBeString();
      expect(r.states).toEqual(["live"]);
    } finally {
      sub.close();
    }
    expect(sub.state).toBe("offline");
  });

  test("after the connection drops it reconnects with Last-Event-ID and the epoch: no event lost, none twice", async () => {
    await using d = await fakeAgentDaemon();
    const net = cuttableFetch();
    const c = createClient({ baseUrl: d.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    try {
      await until(() => sub.state === "live", 5000, "live");
      const { promptId } = await c.prompt(sessionId, "@stream 40 15");
      const chunks = () => r.of("session_update").filter((e) => e.data.update.sessionUpdate === "agent_message_chunk");
      await until(() => chunks().length >= 5, 10_000, "five chunks");
      const lastBeforeCut = sub.position.lastEventId;
      const epoch = sub.position.epoch;
      net.cut();
      await until(() => ended(r.events.map((e) => e.event), promptId), 15_000, "turn_complete after the reconnect");

      const [, second] = net.eventRequests();
      expect(second).toBeDefined();
      expect(Number(second!.headers.get("last-event-id"))).toBeGreaterThanOrEqual(lastBeforeCut);
      expect(second!.headers.get("x-svc-event-epoch")).toBe(epoch!);
      expect(r.states.slice(0, 3)).toEqual(["live", "reconnecting", "live"]);

      const ids = r.events.map((e) => e.event.id).filter((id): id is number => id !== undefined);
      expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
      expect(chunks().map((e) => e.data.update.content.text)).toEqual(Array.from({ length: 40 }, (_, i) => `chunk ${i + 1}/40\n`));
      expect(r.resyncs).toEqual([]);
    } finally {
      sub.close();
    }
  });

  test("an epoch the daemon no longer has resyncs through load: reset, journal replay, then the stream resumes", async () => {
    await using d = await fakeAgentDaemon();
    const net = cuttableFetch();
    const c = createClient({ baseUrl: d.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const first = await c.prompt(sessionId, "@say before the subscription");
    await until(async () => ended((await c.transcript(sessionId)).events, first.promptId), 10_000, "first turn");

    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST, lastEventId: 2, epoch: "an-epoch-of-another-life" });
    try {
      await until(() => sub.state === "resynced", 10_000, "resynced");
      expect(r.resyncs).toHaveLength(1);
      expect(net.sent.filter((s) => s.url.endsWith(`/session/${sessionId}/load`) && s.method === "POST")).toHaveLength(1);
      // The journal's replay reached the consumer, after the reset and before any stream event.
      expect(ended(r.of("turn_complete", "resync"), first.promptId)).toBe(true);
      expect(r.events.findIndex((e) => e.source === "stream")).toSatisfy((i) => i === -1 || r.events.slice(0, i).every((e) => e.source === "resync"));

      const second = await c.prompt(sessionId, "@say after the resync");
      await until(() => ended(r.of("turn_complete", "stream"), second.promptId), 10_000, "second turn on the stream");
      expect(r.of("turn_complete", "stream").filter((e) => e.data.promptId === second.promptId)).toHaveLength(1);
      expect(r.of("turn_complete", "stream").filter((e) => e.data.promptId === first.promptId)).toHaveLength(0);
      const [, resumed] = net.eventRequests();
      expect(resumed!.headers.get("x-svc-event-epoch")).toBe(r.resyncs[0]!.eventEpoch);
    } finally {
      sub.close();
    }
  });

  test("a state_resync_required frame (ring evicted past Last-Event-ID) resyncs through load", async () => {
    await using d = await fakeAgentDaemon(["--event-ring-size", "8"]);
    const c = createClient({ baseUrl: d.url, fetch: contractFetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const { promptId, eventEpoch } = await c.prompt(sessionId, "@stream 30");
    await until(async () => ended((await c.transcript(sessionId, { limit: 500 })).events, promptId), 10_000, "turn");

    const r = subscriptionRecorder();
    // Same epoch, an id the 8-event ring evicted long ago: the daemon says state_resync_required.
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST, lastEventId: 1, epoch: eventEpoch });
    try {
      await until(() => sub.state === "resynced", 10_000, "resynced");
      expect(r.resyncs).toHaveLength(1);
      expect(r.of("state_resync_required")).toEqual([]);
      const replayed = r.of("session_update", "resync").filter((e) => e.data.update.sessionUpdate === "agent_message_chunk");
      expect(replayed).toHaveLength(30);
    } finally {
      sub.close();
    }
  });

  test("with restore: false a closed session ends the subscription offline with the 404; close() stops delivery", async () => {
    await using d = await fakeAgentDaemon();
    const c = createClient({ baseUrl: d.url, fetch: contractFetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    await c.closeSession(sessionId);
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST, restore: false });
    await until(() => r.errors.length > 0, 5000, "the error");
    expect(r.errors[0]).toBeInstanceOf(DaemonApiError);
    expect((r.errors[0] as DaemonApiError).status).toBe(404);
    expect(sub.state).toBe("offline");

    const live = await c.createSession({ sessionScope: "thread" });
    const r2 = subscriptionRecorder();
    const sub2 = c.subscribe(live.sessionId, { ...r2.handlers, ...FAST });
    await until(() => sub2.state === "live", 5000, "live");
    sub2.close();
    const { promptId } = await c.prompt(live.sessionId, "@say nobody listens");
    await until(async () => ended((await c.transcript(live.sessionId)).events, promptId), 10_000, "turn");
    expect(r2.of("turn_complete")).toEqual([]);
    expect(r2.states.at(-1)).toBe("offline");
  });
});
