/**
 * Backpressure over real HTTP against a real fake-agent child: subscribers that keep up receive
 * bursts and frames larger than the byte cap; subscribers whose socket stops draining (a raw socket
 * that stops reading) are warned and evicted as the spec says, honouring `maxQueued`; and a stream
 * that never reads its replay costs a bounded amount of memory, whatever the replay size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_QUEUED_BYTES } from "../../src/events/event-bus.ts";
import { activeSseStreams } from "../helpers/daemon.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession, untilTurnEnds, type TestSession } from "../helpers/prompt-session.ts";
import { openStalledSse, type RawSseFrame } from "../helpers/stalled-sse.ts";
import { until } from "../helpers/until.ts";

const MiB = 1024 * 1024;

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

const text = (value: string) => ({ type: "text", text: value });

/** Prompts with `blocks` and waits for its turn to end on a stream that keeps up; returns the promptId. */
async function runPrompt(s: TestSession, blocks: { type: string; text: string }[]): Promise<string> {
  await using watcher = await s.events();
  const admitted = await s.prompt("", { body: { prompt: blocks } });
  expect(admitted.status).toBe(202);
  await untilTurnEnds(watcher, admitted.body.promptId, 15_000);
  return admitted.body.promptId;
}

/**
 * One prompt whose echo is ~9 MB of large blocks (the agent answers `@say` a short line): far more
 * than the socket buffers of a client that stopped reading, so its writer is left busy.
 */
const fill = (s: TestSession) => runPrompt(s, [text("@say filled"), text("a".repeat(3 * MiB)), text("b".repeat(3 * MiB)), text("c".repeat(3 * MiB))]);

const idFrames = (frames: readonly RawSseFrame[]) => frames.filter((f) => f.id !== undefined);
const contiguous = (frames: readonly RawSseFrame[]) => idFrames(frames).every((f, i, all) => i === 0 || f.id === all[i - 1]!.id! + 1);

describe("subscribers that keep up", () => {
  test("receive a prompt echo of 600 blocks (past the default maxQueued of 256) and a frame larger than the byte cap", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const many = await s.prompt("", { body: { prompt: Array.from({ length: 600 }, (_, i) => text(`block ${i}`)) } });
    const turn = await untilTurnEnds(sse, many.body.promptId, 15_000);
    const echoes = turn.filter((f) => f.data.update?.sessionUpdate === "user_message_chunk");
    expect(echoes.map((f) => f.data.update.content.text)).toEqual(Array.from({ length: 600 }, (_, i) => `block ${i}`));

    // A caption and a 2.5 MB image-sized block, echoed back to back, then the agent's 2.5 MB echo.
    const large = "i".repeat(2.5 * MiB);
    const big = await s.prompt("", { body: { prompt: [text("caption"), text(large)] } });
    const bigTurn = await untilTurnEnds(sse, big.body.promptId, 15_000);
    expect(bigTurn.map((f) => f.event)).toEqual(["session_update", "session_update", "session_update", "turn_complete"]);
    expect(bigTurn[1]!.data.update.content.text).toBe(large);
    expect(bigTurn[2]!.data.update.content.text).toBe(`caption\n${large}`);
    expect(sse.frames.filter((f) => f.event === "client_evicted" || f.event === "slow_client_warning")).toEqual([]);
    expect(sse.ended).toBe(false);
  });
});

describe("subscribers that stop reading", () => {
  test("a frame larger than the byte cap reaches the one that keeps up; the stalled one is evicted with queue_bytes_overflow", async () => {
    await using s = await openSession(d);
    await using keeping = await s.events();
    await using stalled = await openStalledSse(d.port, `/session/${s.id}/events`);
    await fill(s);
    const large = "L".repeat(3 * MiB);
    const promptId = await runPrompt(s, [text("@say after"), text(large)]);

    const keptUp = await untilTurnEnds(keeping, promptId, 15_000);
    expect(keptUp.some((f) => f.data.update?.content?.text === large)).toBe(true);
    expect(keeping.frames.some((f) => f.event === "client_evicted")).toBe(false);

    const { frames, ended } = await stalled.resume({ timeoutMs: 15_000 });
    expect(ended).toBe(true);
    const evicted = frames.at(-1)!;
    expect(evicted.event).toBe("client_evicted");
    expect(evicted.id).toBeUndefined();
    expect(evicted.data).toEqual({
      reason: "queue_bytes_overflow",
      droppedAfter: expect.any(Number),
      queueSize: expect.any(Number),
      maxQueued: 256,
      queuedBytes: expect.any(Number),
      maxQueuedBytes: MAX_QUEUED_BYTES,
      eventBytes: expect.any(Number),
    });
    expect(evicted.data.eventBytes).toBeGreaterThan(3 * MiB);
    expect(evicted.data.queuedBytes + evicted.data.eventBytes).toBeGreaterThan(MAX_QUEUED_BYTES);
    // Everything up to the eviction arrived (what was queued included), nothing after it.
    expect(contiguous(frames)).toBe(true);
    expect(idFrames(frames).at(-1)!.id).toBe(evicted.data.droppedAfter);
    await until(async () => (await activeSseStreams(d)) === 1, 5000, "the evicted stream to be released");
  });

  test("maxQueued is honoured: with 16 the stalled stream is warned at 12 and evicted past 16, while the same traffic leaves a default stream alone", async () => {
    await using s = await openSession(d);
    await using sixteen = await openStalledSse(d.port, `/session/${s.id}/events?maxQueued=16`);
    await using byDefault = await openStalledSse(d.port, `/session/${s.id}/events`);
    await fill(s);
    const streamed = await runPrompt(s, [text("@stream 40 0")]);

    const { frames, ended } = await sixteen.resume({ timeoutMs: 15_000 });
    expect(ended).toBe(true);
    const warnings = frames.filter((f) => f.event === "slow_client_warning");
    expect(warnings).toHaveLength(1);
    const warnAt = frames.indexOf(warnings[0]!);
    expect(warnings[0]!.data).toEqual({
      queueSize: 12,
      maxQueued: 16,
      lastEventId: frames[warnAt - 1]!.id,
      queuedBytes: expect.any(Number),
      maxQueuedBytes: MAX_QUEUED_BYTES,
      threshold: "frames",
    });
    // The warning takes a slot: three more frames fit, the next one overflows.
    expect(frames.slice(warnAt + 1).map((f) => f.event)).toEqual(["session_update", "session_update", "session_update", "client_evicted"]);
    expect(frames.at(-1)!.data).toMatchObject({ reason: "queue_overflow", queueSize: 16, maxQueued: 16, maxQueuedBytes: MAX_QUEUED_BYTES });
    expect(frames.at(-1)!.data.droppedAfter).toBe(frames.at(-2)!.id);
    expect(contiguous(frames)).toBe(true);

    const all = await byDefault.resume({ until: (got) => got.some((f) => f.event === "turn_complete" && f.data.promptId === streamed), timeoutMs: 15_000 });
    expect(all.ended).toBe(false);
    expect(all.frames.filter((f) => f.event === "slow_client_warning" || f.event === "client_evicted")).toEqual([]);
    expect(contiguous(all.frames)).toBe(true);
    expect(all.frames.filter((f) => f.data.update?.sessionUpdate === "agent_message_chunk").map((f) => f.data.update.content.text)).toEqual([
      "filled",
      ...Array.from({ length: 40 }, (_, i) => `chunk ${i + 1}/40\n`),
    ]);
  });
});

describe("memory", () => {
  test("streams that never read a replay of ~8 MiB each cost far less than the live byte cap, not a copy of the replay", async () => {
    await using s = await openSession(d);
    // ~10 MB into the ring: four large echo frames among small ones.
    for (const name of ["a", "b"]) await runPrompt(s, [text(`@say ${name}`), text(name.repeat(2.5 * MiB)), text(name.toUpperCase().repeat(2.5 * MiB))]);
    const streams = 40;
    const stalled: AsyncDisposable[] = [];
    try {
      Bun.gc(true);
      const before = process.memoryUsage().rss;
      // Each stream has started its replay (frame 1 arrived) before it stops reading.
      for (let i = 0; i < streams; i++) stalled.push(await openStalledSse(d.port, `/session/${s.id}/events`, { "Last-Event-ID": "0" }, "id: 1\n"));
      await until(async () => (await activeSseStreams(d)) === streams, 5000, "every stream to be open");
      Bun.gc(true);
      const perStream = (process.memoryUsage().rss - before) / streams;
      expect(perStream, `RSS growth per unread stream: ${(perStream / 1024).toFixed(0)} KiB`).toBeLessThan(MAX_QUEUED_BYTES / 2);
    } finally {
      for (const stream of stalled) await stream[Symbol.asyncDispose]();
    }
  });
});
