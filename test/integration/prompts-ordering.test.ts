/**
 * How one prompt hands over to the next, against a real fake-agent child: a queued prompt runs
 * after a failed turn too; a prompt's events all precede the next prompt's; a cancel sent for a
 * prompt (deadline, cancel route) reaches the agent before the next prompt does, so it can never
 * cancel the wrong one; an agent that ignores the cancel is ended by the daemon after the grace,
 * and the next prompt waits for the agent to end that turn (its late output never carries the next
 * prompt's id), up to a bound past which the session counts as wedged; and a daemon shutdown still
 * gives every prompt its terminal event.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CANCEL_GRACE_MS, UNANSWERED_TURN_BOUND_MS } from "../../src/sessions/prompt-queue.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { agentChunks, isTerminal, openSession, terminalsOf, untilAgentHasPrompt, untilTurnEnds, type TestSession } from "../helpers/prompt-session.ts";
import type { SseFrame } from "../helpers/sse-client.ts";

const proceedOnce = { outcome: "selected", optionId: "proceed_once" };

/** The prompt a frame belongs to (envelope `promptId`, else its data's). */
const promptOf = (f: SseFrame): string | undefined => f.envelope.promptId ?? f.data?.promptId;

/** Asserts that every frame of prompt `first` comes before the turn of `second` starts (its admission, `pending_prompt_added`, may come earlier). */
function expectAllBefore(frames: readonly SseFrame[], first: string, second: string): void {
  const lastOfFirst = frames.findLastIndex((f) => promptOf(f) === first);
  const firstOfSecond = frames.findIndex((f) => promptOf(f) === second && f.event !== "pending_prompt_added");
  expect(lastOfFirst).toBeGreaterThanOrEqual(0);
  expect(firstOfSecond, `${frames.map((f) => `${f.event}:${promptOf(f) === first ? "A" : promptOf(f) === second ? "B" : "-"}`).join(", ")}`).toBeGreaterThan(lastOfFirst);
}

/** A prompt whose own deadline (`deadlineMs`) is short. */
const promptWithDeadline = (s: TestSession, text: string, deadlineMs: number) => s.prompt("", { body: { prompt: [{ type: "text", text }], deadlineMs } });

describe("with the default flags", () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon();
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test("a prompt queued behind a turn that ends in turn_error runs next", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    // The permission holds the failing turn, so the second prompt surely queues behind it.
    const failing = (await s.prompt("@permission\n@error -32603 boom :: the agent failed")).body.promptId;
    const request = await sse.waitFor("permission_request");
    const queued = (await s.prompt("@say after the failure")).body.promptId;
    await sse.waitFor("pending_prompt_added");
    expect((await s.vote(request.data.requestId, proceedOnce)).status).toBe(200);

    const frames = await untilTurnEnds(sse, queued);
    expect(terminalsOf(sse.frames, failing).map((f) => [f.event, f.data.code])).toEqual([["turn_error", "-32603"]]);
    expect(frames.find((f) => f.event === "pending_prompt_started")!.data.promptId).toBe(queued);
    expect(frames.at(-1)!.data).toMatchObject({ promptId: queued, stopReason: "end_turn" });
    expect(agentChunks(frames)).toContain("after the failure");
  });

  test(`an agent that ignores the cancel: the daemon ends the turn cancelled after ${CANCEL_GRACE_MS} ms; the queue goes on, failing prompts it cannot send once the agent has not ended that turn for ${UNANSWERED_TURN_BOUND_MS} ms`, async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const stubborn = (await s.prompt("@ignore-cancel\n@hang")).body.promptId;
    const queued = (await s.prompt("@say next")).body.promptId;
    await untilAgentHasPrompt(s);
    expect((await s.cancel()).status).toBe(204);
    await sse.waitFor("prompt_cancelled");

    const end = (await untilTurnEnds(sse, stubborn, CANCEL_GRACE_MS + 5000)).at(-1)!;
    expect(end.event).toBe("turn_complete");
    expect(end.data).toMatchObject({ stopReason: "cancelled", promptCancelled: { cancelledAt: expect.any(String) } });
    // The agent still runs the stubborn turn: the queued prompt is never sent, and fails once the bound is over.
    const queuedEnd = (await untilTurnEnds(sse, queued, UNANSWERED_TURN_BOUND_MS + 5000)).at(-1)!;
    expect([queuedEnd.event, queuedEnd.data.code]).toEqual(["turn_error", "agent_turn_unanswered"]);
    // While the agent stays wedged, a later prompt fails at once rather than waiting again.
    const later = (await s.prompt("@say later")).body.promptId;
    const laterEnd = (await untilTurnEnds(sse, later, 2000)).at(-1)!;
    expect([laterEnd.event, laterEnd.data.code]).toEqual(["turn_error", "agent_turn_unanswered"]);
    expect(terminalsOf(sse.frames, stubborn)).toHaveLength(1);
    expect((await s.daemon.sentToAgent("session/prompt", s.id)).map((e) => JSON.stringify(e.params).includes(stubborn))).toEqual([true]);
  }, 40_000);

  test("a cancelled turn the agent goes on streaming after the grace: its output never carries the next prompt's id, and the next prompt starts once the agent ends it", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const stubborn = (await s.prompt("@ignore-cancel\n@stream 25 300")).body.promptId;
    const next = (await s.prompt("@say next done")).body.promptId;
    await sse.waitFor("session_update", (f) => f.data.update.sessionUpdate === "agent_message_chunk");
    expect((await s.cancel()).status).toBe(204);

    await untilTurnEnds(sse, next, CANCEL_GRACE_MS + 15_000);
    const frames = sse.frames;
    expectLateOutputUntagged(frames, stubborn, next, 25);
    expect(terminalsOf(frames, stubborn).map((f) => [f.event, f.data.stopReason])).toEqual([["turn_complete", "cancelled"]]);
    expect(terminalsOf(frames, next).map((f) => [f.event, f.data.stopReason])).toEqual([["turn_complete", "end_turn"]]);
  }, 40_000);
});

/**
 * The stubborn turn's `n` chunks all come out, none tagged with `next`'s id, and all before `next`'s
 * turn starts (its `pending_prompt_started`); the ones after the daemon ended the turn carry no id.
 */
function expectLateOutputUntagged(frames: readonly SseFrame[], stubborn: string, next: string, n: number): void {
  const chunks = frames.filter((f) => isAgentChunkOf(f, n));
  expect(chunks).toHaveLength(n);
  expect(chunks.filter((f) => promptOf(f) === next)).toEqual([]);
  const ended = frames.findIndex((f) => isTerminal(f) && f.data.promptId === stubborn);
  const late = frames.filter((f, i) => i > ended && isAgentChunkOf(f, n));
  expect(late.length).toBeGreaterThan(0);
  expect(late.every((f) => f.envelope.promptId === undefined)).toBe(true);
  const started = frames.findIndex((f) => f.event === "pending_prompt_started" && f.data.promptId === next);
  expect(frames.findLastIndex((f) => isAgentChunkOf(f, n))).toBeLessThan(started);
  expectAllBefore(frames, stubborn, next);
}

/** A `chunk i/n` chunk of `@stream n`. */
const isAgentChunkOf = (f: SseFrame, n: number) => f.event === "session_update" && f.data.update.sessionUpdate === "agent_message_chunk" && String(f.data.update.content.text).endsWith(`/${n}\n`);

describe("a prompt deadline expiring while another prompt waits", () => {
  for (const profile of ["fake-agent", "qwen-code"] as const) {
    test(`${profile}: the expired prompt's events all come first, and its cancel reaches the agent before the next prompt`, async () => {
      // The qwen child answers craft/cancelPendingPrompt {cancelled:false} for a running turn, so
      // the daemon's cancel ends with the session/cancel fallback, a round trip later.
      await using d = await fakeAgentDaemon(["--prompt-deadline-ms", "20000"], {
        env: { FAKE_AGENT_NAME: profile, ...(profile === "qwen-code" ? { FAKE_AGENT_CRAFT_CANCEL_REFUSES: "1" } : {}) },
      });
      await using s = await openSession(d);
      await using sse = await s.events();
      const expiring = (await promptWithDeadline(s, "@hang", 300)).body.promptId;
      const next = (await s.prompt("@sleep 200\n@say next done")).body.promptId;

      const frames = await untilTurnEnds(sse, next);
      const expired = terminalsOf(frames, expiring);
      expect(expired.map((f) => [f.event, f.data.code])).toEqual([["turn_error", "prompt_deadline_exceeded"]]);
      expect(frames.filter((f) => f.event === "prompt_cancelled" && promptOf(f) === expiring)).toHaveLength(1);
      expectAllBefore(frames, expiring, next);
      // The next prompt was not cancelled by the expired one's cancel.
      expect(frames.at(-1)!.data).toMatchObject({ promptId: next, stopReason: "end_turn" });
      expect(agentChunks(frames)).toContain("next done");

      const wire = (await d.wire()).filter((e) => (e.params as { sessionId?: string } | undefined)?.sessionId === s.id);
      const nextPrompt = wire.findIndex((e) => e.method === "session/prompt" && JSON.stringify(e.params).includes(next));
      const cancels = wire.flatMap((e, i) => (e.method === "session/cancel" || e.method === "craft/cancelPendingPrompt" ? [i] : []));
      expect(nextPrompt).toBeGreaterThan(0);
      expect(cancels.length).toBeGreaterThan(0);
      expect(Math.max(...cancels)).toBeLessThan(nextPrompt);
    });
  }

  test("the agent goes on streaming the expired turn: its output never carries the next prompt's id, and the next prompt starts once the agent ends it", async () => {
    await using d = await fakeAgentDaemon(["--prompt-deadline-ms", "60000"]);
    await using s = await openSession(d);
    await using sse = await s.events();
    const expiring = (await promptWithDeadline(s, "@ignore-cancel\n@stream 8 300", 1000)).body.promptId;
    const next = (await s.prompt("@sleep 500\n@say next done")).body.promptId;

    const frames = await untilTurnEnds(sse, next, 15_000);
    expectLateOutputUntagged(frames, expiring, next, 8);
    expect(terminalsOf(frames, expiring).map((f) => [f.event, f.data.code])).toEqual([["turn_error", "prompt_deadline_exceeded"]]);
    expect(frames.at(-1)!.data).toMatchObject({ promptId: next, stopReason: "end_turn" });
    expect(agentChunks(frames)).toContain("next done");
  }, 30_000);
});

describe("daemon shutdown", () => {
  test("the running and every queued prompt get turn_error daemon_shutdown before session_died", async () => {
    await using d = await fakeAgentDaemon();
    const s = await openSession(d);
    await using sse = await s.events();
    const running = (await s.prompt("@hang")).body.promptId;
    const queued = [(await s.prompt("@say a")).body.promptId, (await s.prompt("@say b")).body.promptId];
    await untilAgentHasPrompt(s);

    await d.stop();
    await sse.waitForEnd();
    const frames = sse.frames;
    expect(frames.at(-1)!.event).toBe("session_died");
    expect(frames.at(-1)!.data).toMatchObject({ sessionId: s.id, reason: "daemon_shutdown" });
    for (const promptId of [running, ...queued]) {
      const ends = terminalsOf(frames, promptId);
      expect(ends.map((f) => [f.event, f.data.code])).toEqual([["turn_error", "daemon_shutdown"]]);
    }
    expect(frames.filter(isTerminal).map((f) => f.data.promptId)).toEqual([running, ...queued]);
  });
});
