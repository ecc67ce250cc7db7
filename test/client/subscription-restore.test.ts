/**
 * The client SDK's event stream survives what takes a session's liveness away without deleting it:
 * a daemon restart on the same port and data dir, an agent crash, a session closed before the
 * subscription began. A 404 `restorable` is restored through `POST /session/:id/load` (the journal
 * replay goes to `onEvent` after `onResync`) and the stream goes on, in the new epoch whose ids
 * start lower than the old ones. It gives up (onError) on a 404 without `restorable` (deleted), on
 * any 404 after it saw the session closed on purpose, and with `restore: false`.
 */
import { describe, expect, test } from "bun:test";
import { createClient, DaemonApiError, type ConnectionState, type EventEnvelope, type LoadedSession } from "../../src/client/index.ts";
import { subscribe, type SubscribeHost } from "../../src/client/subscription.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { subscriptionRecorder } from "../helpers/subscription-recorder.ts";
import { until } from "../helpers/until.ts";

/** Short backoff so reconnects happen at once in tests. */
const FAST = { backoffBaseMs: 10, backoffMaxMs: 50 };

/** A fetch through the contract check that counts the loads it sent. */
function countingFetch() {
  const loads: string[] = [];
  const fetch = (url: string, init?: RequestInit) => {
    if (init?.method === "POST" && url.endsWith("/load")) loads.push(url);
    return contractFetch(url, init);
  };
  return { fetch, loads };
}

const ended = (events: EventEnvelope[], promptId: string) => events.some((e) => e.type === "turn_complete" && e.data.promptId === promptId);
const agentText = (events: { event: EventEnvelope; source: string }[], source: string) =>
  events
    .filter((e) => e.source === source && e.event.type === "session_update" && e.event.data.update.sessionUpdate === "agent_message_chunk")
    .map((e) => e.event.data.update.content.text)
    .join("");

describe("client SDK subscribe across restarts", () => {
  test("after the daemon restarts on the same port and data dir it restores the session and goes on; the new epoch's lower ids are delivered", async () => {
    await using home = tempDir("svc-home-");
    await using first = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const net = countingFetch();
    const c = createClient({ baseUrl: first.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    try {
      await until(() => sub.state === "live", 5000, "live");
      const before = await c.prompt(sessionId, "@stream 30\n@say before the restart");
      await until(() => r.streamedEnd(before.promptId), 10_000, "the first turn");
      const old = sub.position;
      expect(old.lastEventId).toBeGreaterThan(30);

      await first.stop();
      await using again = await fakeAgentDaemon(["--port", String(first.port)], { env: { SVC_HOME: home.path }, workspace: first.workspace });
      expect(again.url).toBe(first.url);
      await until(() => sub.state === "resynced", 15_000, "the subscription to restore the session");
      expect(r.errors).toEqual([]);
      expect(r.resyncs).toHaveLength(1);
      expect(r.resyncs[0]!.restoredBy).not.toBe("live");
      expect(net.loads).toHaveLength(1);
      // The replay after the reset carries the first life's turn.
      expect(agentText(r.events.slice(r.events.findIndex((e) => e.source === "resync")), "resync")).toContain("before the restart");
      expect(sub.position.epoch).not.toBe(old.epoch);

      const after = await c.prompt(sessionId, "@say after the restart");
      const end = await until(() => r.streamedEnd(after.promptId), 10_000, "the new turn on the stream");
      // The new epoch counts from 1: these ids are below the ones delivered before the restart.
      expect(end.id!).toBeLessThan(old.lastEventId);
      expect(agentText(r.events.filter((e) => e.event.promptId === after.promptId), "stream")).toBe("after the restart");
      expect(r.errors).toEqual([]);
    } finally {
      sub.close();
    }
  }, 60_000);

  test("after the agent crashes (session_died) it restores the session on a new agent and goes on", async () => {
    await using d = await fakeAgentDaemon();
    const net = countingFetch();
    const c = createClient({ baseUrl: d.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    try {
      await until(() => sub.state === "live", 5000, "live");
      await c.prompt(sessionId, "@say about to crash\n@crash 3");
      await until(() => r.events.some((e) => e.source === "stream" && e.event.type === "session_died"), 10_000, "session_died");
      await until(() => sub.state === "resynced", 15_000, "the restore");
      expect(net.loads).toHaveLength(1);
      const after = await c.prompt(sessionId, "@say on the new agent");
      await until(() => r.streamedEnd(after.promptId), 10_000, "the turn after the crash");
      expect(await d.agentPids()).toHaveLength(2);
      expect(r.errors).toEqual([]);
    } finally {
      sub.close();
    }
  }, 30_000);

  test("a session closed before the subscription began is restored; with restore: false the 404 ends it", async () => {
    await using d = await fakeAgentDaemon();
    const net = countingFetch();
    const c = createClient({ baseUrl: d.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const first = await c.prompt(sessionId, "@say first words");
    await until(async () => ended((await c.transcript(sessionId)).events, first.promptId), 10_000, "first turn");
    await c.closeSession(sessionId);

    const off = subscriptionRecorder();
    const refused = c.subscribe(sessionId, { ...off.handlers, ...FAST, restore: false });
    await until(() => off.errors.length > 0, 5000, "the error");
    expect(off.errors[0]).toBeInstanceOf(DaemonApiError);
    expect((off.errors[0] as DaemonApiError).body).toMatchObject({ code: "session_not_found", restorable: true });
    expect(refused.state).toBe("offline");
    expect(net.loads).toEqual([]);

    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    try {
      await until(() => sub.state === "resynced", 10_000, "restored");
      expect(agentText(r.events, "resync")).toContain("first words");
      const second = await c.prompt(sessionId, "@say second words");
      await until(() => r.streamedEnd(second.promptId), 10_000, "the turn after the restore");
      expect(r.errors).toEqual([]);
    } finally {
      sub.close();
    }
  });

  test("a session closed by a client while subscribed is not brought back: the 404 ends the subscription", async () => {
    await using d = await fakeAgentDaemon();
    const net = countingFetch();
    const c = createClient({ baseUrl: d.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    await until(() => sub.state === "live", 5000, "live");
    // Another client closes it.
    expect((await contractFetch(`${d.url}/session/${sessionId}`, { method: "DELETE" })).status).toBe(204);
    await until(() => r.errors.length > 0, 5000, "the error");
    expect(r.events.map((e) => e.event.type)).toContain("session_closed");
    expect((r.errors[0] as DaemonApiError).status).toBe(404);
    expect(sub.state).toBe("offline");
    expect(net.loads).toEqual([]);
    expect((await d.json("GET", `/session/${sessionId}/status`)).status).toBe(404);
  });

  test("a session a client closes while this subscription's connection is down is not brought back when it reconnects", async () => {
    await using d = await fakeAgentDaemon();
    const net = countingFetch();
    let down = false;
    const streams: AbortController[] = [];
    const flaky = (url: string, init?: RequestInit) => {
      if (!url.includes("/events")) return net.fetch(url, init);
      if (down) return Promise.reject(new TypeError("network down"));
      const cut = new AbortController();
      streams.push(cut);
      return net.fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([cut.signal, init.signal]) : cut.signal });
    };
    const c = createClient({ baseUrl: d.url, fetch: flaky });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    await until(() => sub.state === "live", 5000, "live");
    down = true;
    for (const cut of streams) cut.abort();
    await until(() => sub.state === "reconnecting", 5000, "the drop seen");
    // Meanwhile another client closes it on purpose; this subscription never sees session_closed.
    expect((await contractFetch(`${d.url}/session/${sessionId}`, { method: "DELETE" })).status).toBe(204);
    down = false;
    await until(() => r.errors.length > 0, 5000, "the error");
    expect((r.errors[0] as DaemonApiError).body).toMatchObject({ restorable: true, persistedState: "closed" });
    expect(r.events.map((e) => e.event.type)).not.toContain("session_closed");
    expect(net.loads).toEqual([]);
    expect(sub.state).toBe("offline");
    expect((await d.json("GET", `/session/${sessionId}/status`)).status).toBe(404);
    sub.close();
  });

  test("a deleted session (404 without restorable) ends the subscription", async () => {
    await using d = await fakeAgentDaemon();
    const net = countingFetch();
    const c = createClient({ baseUrl: d.url, fetch: net.fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    await c.closeSession(sessionId);
    expect((await d.json("POST", "/sessions/delete", { sessionIds: [sessionId] })).status).toBe(200);
    const r = subscriptionRecorder();
    const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
    await until(() => r.errors.length > 0, 5000, "the error");
    expect((r.errors[0] as DaemonApiError).status).toBe(404);
    expect((r.errors[0] as DaemonApiError).body?.restorable).toBeUndefined();
    expect(sub.state).toBe("offline");
    expect(net.loads).toEqual([]);
  });
});

const envelope = (id: number) => ({ id, v: 1, type: "session_update", data: {}, _meta: { serverTimestamp: 0 } });
const frames = (ids: number[]) => ids.map((id) => `id: ${id}\nevent: session_update\ndata: ${JSON.stringify(envelope(id))}\n\n`).join("");
const restorable404 = () => new Response(JSON.stringify({ error: "No session", code: "session_not_found", sessionId: "s", restorable: true }), { status: 404 });

/**
 * A host (no daemon) whose n-th events request is answered by `script[n]`: a 404 `restorable`, or
 * frames in an epoch (then the stream stays open when `open`). A load throws the next of
 * `loadFailures`, once they are used up it answers `loaded`.
 */
function scriptedHost(script: ("404" | { epoch: string; ids: number[]; open?: boolean })[], loaded: Partial<LoadedSession>, loadFailures: Error[] = []) {
  const requests: { at: number; headers: Headers }[] = [];
  const loads: number[] = [];
  const host: SubscribeHost = {
    url: (path) => `http://stub${path}`,
    headersFor: () => ({}),
    async fetch(_url, init) {
      requests.push({ at: performance.now(), headers: new Headers(init?.headers) });
      const step = script[requests.length - 1] ?? "404";
      if (step === "404") return restorable404();
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(frames(step.ids)));
          if (!step.open) c.close();
          init?.signal?.addEventListener("abort", () => c.error(new Error("aborted")));
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream", "x-svc-event-epoch": step.epoch } });
    },
    async loadSession() {
      loads.push(performance.now());
      // A turn of the event loop, as a real load takes: a subscription that restores without pause spins visibly instead of starving the test.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const failure = loadFailures.shift();
      if (failure) throw failure;
      return { sessionId: "s", eventEpoch: "e2", lastEventId: 0, compactedReplay: [], liveJournal: [], state: {}, restoredBy: "session/load", ...loaded } as LoadedSession;
    },
  };
  return { host, requests, loads };
}

describe("subscribe restores (scripted host)", () => {
  test("after a restore into a new epoch whose ids are lower than the old ones, those events are delivered (the dedupe starts over)", async () => {
    // Life 1 reached id 40; the daemon restarts; the restored session counts from 1 in epoch e2.
    const { host, requests, loads } = scriptedHost([{ epoch: "e1", ids: [38, 39, 40] }, "404", { epoch: "e2", ids: [1, 2, 3], open: true }], { eventEpoch: "e2", lastEventId: 0 });
    const ids: (number | undefined)[] = [];
    const sub = subscribe(host, "s", { onEvent: (e) => void ids.push(e.id), backoffBaseMs: 1, backoffMaxMs: 2 });
    try {
      await until(() => requests.length >= 3 && ids.length >= 6, 5000, "the new epoch's events");
    } finally {
      sub.close();
    }
    expect(ids).toEqual([38, 39, 40, 1, 2, 3]);
    expect(loads).toHaveLength(1);
    expect(requests[2]!.headers.get("x-svc-event-epoch")).toBe("e2");
    expect(requests[2]!.headers.get("last-event-id")).toBe("0");
  });

  test("the first restore goes at once; a session that 404s again after each load is restored with backoff, not in a hot loop", async () => {
    const { host, requests, loads } = scriptedHost([], { eventEpoch: "e2", lastEventId: 0 });
    const states: ConnectionState[] = [];
    const sub = subscribe(host, "s", { onEvent: () => undefined, onState: (s) => void states.push(s), backoffBaseMs: 200, backoffMaxMs: 800 });
    try {
      await until(() => loads.length >= 5, 10_000, "five restores");
    } finally {
      sub.close();
    }
    // The first load follows the first 404 at once (no backoff: the daemon is up).
    expect(loads[0]! - requests[0]!.at).toBeLessThan(100);
    // Then each restore waits after the 404 that followed the previous one: 200, 400, 800, 800 ms with full jitter (≥ half).
    const waits = loads.slice(1).map((at, i) => at - requests[i + 1]!.at);
    [200, 400, 800, 800].forEach((bound, i) => expect(waits[i]!).toBeGreaterThanOrEqual(bound / 2 - 1));
    expect(states).not.toContain("live");
  });

  test("a load refused with 409 restore_in_progress (another client restoring it by resume) is retried, not the end", async () => {
    const busy = new DaemonApiError(409, { error: "being restored", code: "restore_in_progress", retryable: true }, 5);
    const { host, loads } = scriptedHost(["404", { epoch: "e2", ids: [1], open: true }], { eventEpoch: "e2", lastEventId: 0 }, [busy]);
    const errors: unknown[] = [];
    const ids: (number | undefined)[] = [];
    const sub = subscribe(host, "s", { onEvent: (e) => void ids.push(e.id), onError: (e) => void errors.push(e), backoffBaseMs: 1, backoffMaxMs: 2 });
    try {
      await until(() => sub.state === "resynced" || errors.length > 0, 5000, "resynced or given up");
    } finally {
      sub.close();
    }
    expect(errors).toEqual([]);
    expect(loads).toHaveLength(2);
    expect(ids).toEqual([1]);
  });
});
