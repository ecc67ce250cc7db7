/**
 * How one prompt hands over to the next, against a real fake-agent child: a queued prompt runs
 * after a failed turn too; a prompt's events all precede the next prompt's; a cancel sent for a
 * prompt (deadline, cancel route) reaches the agent before the next prompt does, so it can never
 * cancel the wrong one; an agent that ignores the cancel is ended by the daemon after the grace;
 * and a daemon shutdown still gives every prompt its terminal event.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CANCEL_GRACE_MS } from "../../src/sessions/prompt-queue.ts";
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

  test(`an agent that ignores the cancel: the daemon ends the turn cancelled after ${CANCEL_GRACE_MS} ms and the queue goes on`, async () => {
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
    expect((await untilTurnEnds(sse, queued)).at(-1)!.data).toMatchObject({ stopReason: "end_turn" });
    expect(terminalsOf(sse.frames, stubborn)).toHaveLength(1);
  }, 30_000);
});

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
