/**
 * SideQuestions' bounds with a stand-in session and agent channel: the time limit, the daemon-wide
 * count, the answer's size, and the answer's shape checks.
 */
import { expect, test } from "bun:test";
import type { LiveSession } from "../../../src/sessions/live-session.ts";
import { MAX_ANSWER_BYTES, MAX_RUNNING, SideQuestions, checkQuestion } from "../../../src/sessions/side-questions.ts";

type Answer = (method: string, params: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/** Waits until `signal` aborts, then fails as the channel does. */
const never: Answer = (_m, _p, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));

function session(id: string, answer: Answer, prefix: "svc" | "qwen" = "qwen"): LiveSession & { close(): void } {
  const ended = new AbortController();
  const live = { profile: { name: prefix === "svc" ? "svc" : "qwen-code", extensionPrefix: prefix }, channel: { request: (method: string, params: Record<string, unknown>, o: { signal: AbortSignal }) => answer(method, params, o.signal) } };
  return {
    id,
    agentSessionId: `agent-${id}`,
    get isEnded() {
      return ended.signal.aborted;
    },
    endSignal: ended.signal,
    runtime: { current: () => live },
    close: () => ended.abort(),
  } as unknown as LiveSession & { close(): void };
}

test("a question not answered in time is 504 side_question_timeout, and the session is free again", async () => {
  const questions = new SideQuestions(null, 50);
  const s = session("a", never);
  const err = await questions.ask(s, "q").catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 504, code: "side_question_timeout" });
  const answered = await questions.ask(session("a", async () => ({ answer: "yes" })), "q");
  expect(answered).toEqual({ sessionId: "a", answer: "yes" });
});

test("at most MAX_RUNNING questions run in the daemon: the next is 429 side_questions_busy", async () => {
  const questions = new SideQuestions(null, 5000);
  const sessions = Array.from({ length: MAX_RUNNING + 1 }, (_, i) => session(`s${i}`, never));
  const running = sessions.slice(0, MAX_RUNNING).map((s) => questions.ask(s, "q").catch((e: unknown) => e));
  const err = await questions.ask(sessions[MAX_RUNNING]!, "q").catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 429, code: "side_questions_busy", retryAfter: 5 });
  for (const s of sessions) s.close();
  for (const outcome of await Promise.all(running)) expect(outcome).toMatchObject({ status: 409, code: "session_closed" });
});

test("the answer is cut to its bound; an empty or missing one is null; a question is trimmed and bounded", async () => {
  const questions = new SideQuestions(null, 5000);
  const long = await questions.ask(session("a", async () => ({ answer: "x".repeat(MAX_ANSWER_BYTES * 2) })), "q");
  expect(Buffer.byteLength(long.answer!)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  expect(long.answer!.endsWith("…")).toBe(true);
  expect((await questions.ask(session("a", async () => ({ answer: "  " })), "q")).answer).toBeNull();
  expect((await questions.ask(session("a", async () => null), "q")).answer).toBeNull();
  const viaSvc = await questions.ask(session("b", async (method, params) => ({ text: `${method} ${String(params.prompt).includes("side question:\n\nwhy?")}`, model: "m" }), "svc"), "why?");
  expect(viaSvc).toEqual({ sessionId: "b", answer: "svc/control/session/generate true", model: "m" });
  expect(checkQuestion("  why?\n")).toBe("why?");
  expect(() => checkQuestion("   ")).toThrow();
});
