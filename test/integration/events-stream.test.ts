/**
 * `GET /session/:id/events` over real HTTP against a real fake-agent child: handshake, the prompt
 * flow as a client sees it, envelope stamping, Last-Event-ID / epoch replay, query validation and
 * fan-out to many subscribers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { activeSseStreams } from "../helpers/daemon.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { agentChunks, completeTurn, isAgentChunk, isTerminal, openSession, terminalsOf, untilTurnEnds } from "../helpers/prompt-session.ts";
import type { SseFrame } from "../helpers/sse-client.ts";
import { until } from "../helpers/until.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ids = (frames: readonly SseFrame[]) => frames.map((f) => f.id);

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

describe("handshake", () => {
  test("answers an event stream with no-cache, no proxy buffering, the epoch and a stream id, and `retry: 3000` first", async () => {
    await using s = await openSession(d);
    await using a = await s.events();
    await using b = await s.events();
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toStartWith("text/event-stream");
    expect(a.headers.get("cache-control")).toContain("no-cache");
    expect(a.headers.get("x-accel-buffering")).toBe("no");
    expect(a.headers.get("x-svc-event-epoch")).toMatch(UUID);
    expect(a.headers.get("x-svc-sse-stream-id")).toMatch(UUID);
    // One epoch per session bus, one id per stream.
    expect(b.headers.get("x-svc-event-epoch")).toBe(a.headers.get("x-svc-event-epoch")!);
    expect(b.headers.get("x-svc-sse-stream-id")).not.toBe(a.headers.get("x-svc-sse-stream-id")!);

    await s.prompt("hello");
    await a.waitFor("turn_complete");
    expect(a.blocks[0]).toBe("retry: 3000");
    expect(a.retry).toBe(3000);
  });

  test("an unknown session is a JSON 404 naming it", async () => {
    await using sse = await d.events("no-such-session", {}, { expectOk: false });
    expect(sse.status).toBe(404);
    expect(sse.headers.get("content-type")).toStartWith("application/json");
    const res = await d.fetch("/session/no-such-session/events");
    expect(await res.json()).toMatchObject({ code: "session_not_found", sessionId: "no-such-session", error: expect.stringContaining("no-such-session") });
  });

  test("maxQueued outside 16..2048 is a 400 invalid_max_queued before any stream opens", async () => {
    await using s = await openSession(d);
    for (const bad of ["15", "2049", "0", "abc", "16.5", "-20", ""]) {
      const res = await d.fetch(`/session/${s.id}/events?maxQueued=${bad}`);
      expect(res.status, `maxQueued=${bad}`).toBe(400);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect(await res.json()).toMatchObject({ code: "invalid_max_queued", error: expect.any(String) });
    }
    expect(await activeSseStreams(d)).toBe(0);
    for (const good of ["16", "2048"]) {
      await using sse = await s.events({}, { query: `?maxQueued=${good}` });
      expect(sse.status).toBe(200);
    }
  });
});

describe("the prompt flow", () => {
  test("subscribe, then prompt: 202, the user echo, the agent's updates, exactly one turn_complete with the promptId", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const admitted = await s.prompt("@stream 3 5");
    expect(admitted.status).toBe(202);
    expect(admitted.body).toEqual({ promptId: expect.stringMatching(UUID), lastEventId: expect.any(Number), eventEpoch: sse.headers.get("x-svc-event-epoch") });
    const { promptId, lastEventId } = admitted.body;

    const turn = await untilTurnEnds(sse, promptId);
    expect(turn.map((f) => f.event)).toEqual(["session_update", "session_update", "session_update", "session_update", "turn_complete"]);
    const echo = turn[0]!;
    expect(echo.data).toMatchObject({
      sessionId: s.id,
      update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "@stream 3 5" }, _meta: { source: "bridge-echo" } },
    });
    expect(agentChunks(turn)).toEqual(["chunk 1/3\n", "chunk 2/3\n", "chunk 3/3\n"]);
    expect(turn.at(-1)!.data).toEqual({ sessionId: s.id, stopReason: "end_turn", promptId });
    for (const frame of turn) {
      expect(frame.envelope.promptId).toBe(promptId);
      expect(frame.envelope.v).toBe(1);
      expect(frame.envelope._meta.serverTimestamp).toBeNumber();
      expect(frame.id!).toBeGreaterThan(lastEventId);
    }
    // Ids are contiguous within the turn.
    expect(ids(turn)).toEqual(turn.map((_, i) => turn[0]!.id! + i));

    // Nothing else finishes that prompt: the next prompt's turn follows without another terminal for it.
    const next = await s.prompt("second");
    const nextTurn = await untilTurnEnds(sse, next.body.promptId);
    expect(nextTurn.filter(isTerminal).map((f) => f.data.promptId)).toEqual([next.body.promptId]);
    expect(terminalsOf(sse.frames, promptId)).toHaveLength(1);
  });

  test("prompt-driven frames carry the promptId and the originator's client id; an anonymous prompt carries no client id", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const mine = await s.prompt("@stream 2 0", { clientId: s.clientId });
    expect(mine.status).toBe(202);
    const turn = await untilTurnEnds(sse, mine.body.promptId);
    for (const frame of turn) expect(frame.envelope).toMatchObject({ promptId: mine.body.promptId, originatorClientId: s.clientId });

    const anonymous = await s.prompt("@say hi");
    const anonymousTurn = await untilTurnEnds(sse, anonymous.body.promptId);
    for (const frame of anonymousTurn) {
      expect(frame.envelope.promptId).toBe(anonymous.body.promptId);
      expect("originatorClientId" in frame.envelope).toBe(false);
    }
  });

  test("a prompt naming a client id not registered on the session is refused", async () => {
    await using s = await openSession(d);
    const res = await s.prompt("hi", { clientId: "client_not-registered" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_client_id" });
  });
});

describe("replay", () => {
  test("reconnecting with Last-Event-ID mid-turn loses nothing and duplicates nothing", async () => {
    await using s = await openSession(d);
    await using watcher = await s.events();
    await using first = await s.events();
    const epoch = first.headers.get("x-svc-event-epoch")!;
    const { body } = await s.prompt("@stream 20 20");
    for (let seen = 0; seen < 5; ) if (isAgentChunk((await first.next())!)) seen++;
    first.close();
    const lastSeen = first.frames.at(-1)!.id!;
    // Let the turn move on while nobody is listening on this client's behalf.
    await watcher.waitFor("session_update", (f) => f.id! >= lastSeen + 3);

    await using second = await s.events({ "Last-Event-ID": String(lastSeen), "X-Svc-Event-Epoch": epoch });
    const rest = await untilTurnEnds(second, body.promptId);
    const replayComplete = rest.findIndex((f) => f.event === "replay_complete");
    expect(replayComplete).toBeGreaterThanOrEqual(3);
    expect(rest.slice(0, replayComplete).every((f) => f.id !== undefined && f.id > lastSeen)).toBe(true);
    expect(rest[replayComplete]!.data).toMatchObject({ replayedCount: replayComplete, lastReplayedEventId: lastSeen + replayComplete });

    const combined = [...first.frames.filter((f) => f.id !== undefined && f.id <= lastSeen), ...rest.filter((f) => f.id !== undefined)];
    expect(ids(combined)).toEqual(combined.map((_, i) => combined[0]!.id! + i));
    expect(agentChunks(combined)).toEqual(Array.from({ length: 20 }, (_, i) => `chunk ${i + 1}/20\n`));
    expect(combined.filter((f) => f.event === "turn_complete")).toHaveLength(1);
    // The client that never disconnected saw exactly the same frames.
    await untilTurnEnds(watcher, body.promptId);
    expect(ids(watcher.frames)).toEqual(ids(combined));
  });

  test("Last-Event-ID 0 replays from the oldest event, then replay_complete, then live frames", async () => {
    await using s = await openSession(d);
    const body = await completeTurn(s, "@say one");
    await using before = await s.events({ "Last-Event-ID": "0" });
    const replayed = await untilTurnEnds(before, body.promptId);
    expect(replayed[0]!.id).toBe(1);
    expect(ids(replayed)).toEqual(replayed.map((_, i) => i + 1));
    const complete = await before.next();
    expect(complete!.event).toBe("replay_complete");
    expect(complete!.id).toBeUndefined();
    expect(complete!.data).toEqual({ replayedCount: expect.any(Number), lastReplayedEventId: expect.any(Number), lastEventId: complete!.data.lastReplayedEventId });
    expect(complete!.data.replayedCount).toBe(complete!.data.lastEventId);

    const live = await s.prompt("@say two");
    const turn = await untilTurnEnds(before, live.body.promptId);
    expect(turn[0]!.id).toBe(complete!.data.lastEventId + 1);
  });

  test("prompt first, subscribe after: Last-Event-ID from the 202 replays the whole turn", async () => {
    await using s = await openSession(d);
    const { body } = await s.prompt("@stream 2 0");
    await using sse = await s.events({ "Last-Event-ID": String(body.lastEventId), "X-Svc-Event-Epoch": body.eventEpoch });
    const turn = await untilTurnEnds(sse, body.promptId);
    const frames = turn.filter((f) => f.id !== undefined);
    expect(frames[0]!.id).toBe(body.lastEventId + 1);
    expect(frames[0]!.data.update).toMatchObject({ sessionUpdate: "user_message_chunk", _meta: { source: "bridge-echo" } });
    expect(agentChunks(frames)).toEqual(["chunk 1/2\n", "chunk 2/2\n"]);
    expect(turn.filter((f) => f.event === "state_resync_required")).toEqual([]);
  });

  test("without Last-Event-ID a stream is live only: no replay and no replay_complete", async () => {
    await using s = await openSession(d);
    await completeTurn(s, "@say old");
    for (const header of [{}, { "Last-Event-ID": "not-a-number" }] as Record<string, string>[]) {
      await using sse = await s.events(header);
      const { body } = await s.prompt("@say new");
      const turn = await untilTurnEnds(sse, body.promptId);
      // Every frame is a live, id-carrying frame of the new prompt, starting with its echo.
      expect(turn.map((f) => f.envelope.promptId)).toEqual(turn.map(() => body.promptId));
      expect(turn.every((f) => f.id !== undefined)).toBe(true);
      expect(turn[0]!.data.update.sessionUpdate).toBe("user_message_chunk");
      expect(turn[0]!.data.update.content.text).toBe("@say new");
    }
  });

  test("a stale epoch asks for a resync first, then replays the whole ring", async () => {
    await using s = await openSession(d);
    const body = await completeTurn(s, "@stream 3 0");
    const lastId = body.frames.at(-1)!.id!;

    await using sse = await s.events({ "Last-Event-ID": "2", "X-Svc-Event-Epoch": "00000000-0000-4000-8000-000000000000" });
    const resync = await sse.next();
    expect(resync!.event).toBe("state_resync_required");
    expect(resync!.id).toBeUndefined();
    expect(resync!.data).toEqual({ reason: "epoch_reset", detail: "epoch_mismatch", lastDeliveredId: 2, earliestAvailableId: 1 });
    const replay = await untilTurnEnds(sse, body.promptId);
    expect(ids(replay)).toEqual(Array.from({ length: lastId }, (_, i) => i + 1));
    expect((await sse.next())!.event).toBe("replay_complete");
  });

  test("Last-Event-ID one past the last event (an id this epoch never issued) is an epoch reset; the last event itself is not", async () => {
    await using s = await openSession(d);
    const body = await completeTurn(s, "@say x");
    const lastId = body.frames.at(-1)!.id!;
    await using current = await s.events({ "Last-Event-ID": String(lastId) });
    const epoch = current.headers.get("x-svc-event-epoch")!;
    expect((await current.next())!.data).toEqual({ replayedCount: 0, lastEventId: lastId });

    await using ahead = await s.events({ "Last-Event-ID": String(lastId + 1), "X-Svc-Event-Epoch": epoch });
    expect((await ahead.next())!.data).toEqual({ reason: "epoch_reset", lastDeliveredId: lastId + 1, earliestAvailableId: 1 });
    const replay = await untilTurnEnds(ahead, body.promptId);
    expect(ids(replay)).toEqual(Array.from({ length: lastId }, (_, i) => i + 1));
    expect((await ahead.next())!.event).toBe("replay_complete");
  });

  test("a Last-Event-ID past the last event is treated as an epoch reset", async () => {
    await using s = await openSession(d);
    await completeTurn(s, "@say x");
    await using sse = await s.events({ "Last-Event-ID": "100000" });
    const resync = await sse.next();
    expect(resync!.data).toEqual({ reason: "epoch_reset", lastDeliveredId: 100000, earliestAvailableId: 1 });
    expect((await sse.next())!.id).toBe(1);
  });
});

describe("a small replay ring", () => {
  test("a reconnect whose gap fell out of the ring is told ring_evicted before the surviving suffix", async () => {
    await using small = await fakeAgentDaemon(["--event-ring-size", "4"]);
    await using s = await openSession(small);
    const body = await completeTurn(s, "@stream 8 0");
    await using probe = await s.events({ "Last-Event-ID": "0" });
    const all = await untilTurnEnds(probe, body.promptId);
    const lastId = all.at(-1)!.id!;
    expect(ids(all)).toEqual([lastId - 3, lastId - 2, lastId - 1, lastId]);

    await using sse = await s.events({ "Last-Event-ID": "1", "X-Svc-Event-Epoch": probe.headers.get("x-svc-event-epoch")! });
    expect((await sse.next())!.data).toEqual({ reason: "ring_evicted", lastDeliveredId: 1, earliestAvailableId: lastId - 3 });
    expect(ids(await untilTurnEnds(sse, body.promptId))).toEqual([lastId - 3, lastId - 2, lastId - 1, lastId]);
  });
});

describe("fan-out", () => {
  test("100 concurrent subscribers each receive every event, in order", async () => {
    await using s = await openSession(d);
    const streams = await Promise.all(Array.from({ length: 100 }, () => s.events()));
    try {
      await until(async () => (await activeSseStreams(d)) === 100, 5000, "100 open streams");
      const { body } = await s.prompt("@stream 10 2");
      const seen = await Promise.all(streams.map(async (sse) => ids(await untilTurnEnds(sse, body.promptId, 15_000))));
      const expected = seen[0]!;
      expect(expected).toHaveLength(12); // echo, ten chunks, turn_complete
      expect(expected).toEqual(expected.map((_, i) => expected[0]! + i));
      for (const got of seen) expect(got).toEqual(expected);
    } finally {
      for (const sse of streams) sse.close();
    }
    // The daemon lets go of every stream whose client left.
    await until(async () => (await activeSseStreams(d)) === 0, 5000, "the streams to be released");
  });
});

describe("writer idle timeout", () => {
  test("a client that keeps reading is not evicted while the session is quiet for longer than the timeout", async () => {
    await using idle = await fakeAgentDaemon(["--writer-idle-timeout-ms", "300"]);
    await using s = await openSession(idle);
    await using sse = await s.events();
    // The agent goes quiet for three times the timeout in the middle of the turn.
    const { body } = await s.prompt("@say before\n@sleep 900\n@say after");
    const turn = await untilTurnEnds(sse, body.promptId);
    expect(agentChunks(turn)).toEqual(["before", "after"]);
    expect(sse.frames.some((f) => f.event === "client_evicted")).toBe(false);
    expect(sse.ended).toBe(false);
  });
});
