/**
 * How prompts end other than by the agent's answer, against a real fake-agent child: the prompt
 * deadline, closing the session, the agent child crashing, an agent error, and (not) a client
 * going away. Whatever happens, every admitted prompt gets exactly one terminal event.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { activeSseStreams } from "../helpers/daemon.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { isAgentChunk, isTerminal, openSession, terminalsOf, untilAgentHasPrompt, untilTurnEnds } from "../helpers/prompt-session.ts";
import type { SseClient, SseFrame } from "../helpers/sse-client.ts";
import { until } from "../helpers/until.ts";

/** Reads the stream until the daemon ends it; returns everything it delivered. */
async function readToEnd(sse: SseClient): Promise<SseFrame[]> {
  await sse.waitForEnd();
  const rest: SseFrame[] = [];
  for (let f = await sse.next(); f !== null; f = await sse.next()) rest.push(f);
  return [...sse.frames];
}

describe("prompt deadline", () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon(["--prompt-deadline-ms", "300"]);
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test("--prompt-deadline-ms ends a running and a queued prompt with turn_error prompt_deadline_exceeded", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const running = (await s.prompt("@hang")).body.promptId;
    const queued = (await s.prompt("@hang")).body.promptId;
    const first = await untilTurnEnds(sse, running);
    expect(first.at(-1)!.data).toEqual({ sessionId: s.id, promptId: running, message: "prompt exceeded the 300ms deadline", code: "prompt_deadline_exceeded", errorKind: "prompt_deadline_exceeded" });
    const second = await untilTurnEnds(sse, queued);
    expect(second.at(-1)!.data).toMatchObject({ promptId: queued, code: "prompt_deadline_exceeded" });
    // The terminal comes first, then prompt_cancelled; the agent is told to stop.
    const cancelled = sse.frames.filter((f) => f.event === "prompt_cancelled" && f.envelope.promptId === running);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.data).toEqual({ sessionId: s.id, reason: "prompt_deadline_exceeded" });
    expect(sse.frames.indexOf(cancelled[0]!)).toBeGreaterThan(sse.frames.indexOf(first.at(-1)!));
    await until(async () => (await d.sentToAgent("session/cancel", s.id)).length >= 1, 5000, "session/cancel to reach the agent");
    expect(terminalsOf(sse.frames, running)).toHaveLength(1);
    expect(terminalsOf(sse.frames, queued)).toHaveLength(1);
    expect((await s.pending()).body.pendingPrompts).toEqual([]);
  });

  test("a shorter deadlineMs on the prompt wins over the daemon's", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const res = await s.prompt("", { body: { prompt: [{ type: "text", text: "@hang" }], deadlineMs: 100 } });
    const end = (await untilTurnEnds(sse, res.body.promptId)).at(-1)!;
    expect(end.event).toBe("turn_error");
    expect(end.data).toMatchObject({ code: "prompt_deadline_exceeded", message: "prompt exceeded the 100ms deadline" });
  });
});

describe("with the default flags", () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon();
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  describe("closing the session", () => {
    test("DELETE with a running and queued prompts: turn_complete cancelled, turn_error session_closed for each queued, then session_closed ends the stream", async () => {
      await using s = await openSession(d);
      await using sse = await s.events();
      const running = (await s.prompt("@hang")).body.promptId;
      const queued = [(await s.prompt("@say a")).body.promptId, (await s.prompt("@say b")).body.promptId];
      await untilAgentHasPrompt(s);

      const res = await d.fetch(`/session/${s.id}`, { method: "DELETE" });
      expect(res.status).toBe(204);
      const frames = await readToEnd(sse);
      const last = frames.at(-1)!;
      expect(last.event).toBe("session_closed");
      expect(last.data).toMatchObject({ sessionId: s.id, reason: "client_close" });

      const runningEnd = terminalsOf(frames, running);
      expect(runningEnd).toHaveLength(1);
      expect(runningEnd[0]!.event).toBe("turn_complete");
      expect(runningEnd[0]!.data).toMatchObject({ stopReason: "cancelled" });
      for (const promptId of queued) {
        const ends = terminalsOf(frames, promptId);
        expect(ends).toHaveLength(1);
        expect(ends[0]!.event).toBe("turn_error");
        expect(ends[0]!.data).toMatchObject({ sessionId: s.id, promptId, code: "session_closed", message: expect.any(String) });
      }
      // The terminals come before session_closed, running prompt first, in admission order.
      expect(frames.filter(isTerminal).map((f) => f.data.promptId)).toEqual([running, ...queued]);
      // No queued prompt was started on the way out.
      expect(frames.filter((f) => f.event === "pending_prompt_started")).toEqual([]);

      expect((await d.fetch(`/session/${s.id}/events`)).status).toBe(404);
      expect((await s.prompt("@say gone")).status).toBe(404);
    });
  });

  describe("agent errors", () => {
    test("a JSON-RPC error from the agent becomes turn_error with its details and code; the session goes on", async () => {
      await using s = await openSession(d);
      await using sse = await s.events();
      const failed = (await s.prompt("@error -32603 boom :: the details")).body.promptId;
      const end = (await untilTurnEnds(sse, failed)).at(-1)!;
      expect(end.event).toBe("turn_error");
      expect(end.data).toEqual({ sessionId: s.id, promptId: failed, message: "the details", code: "-32603" });

      const plain = (await s.prompt("@error -32000 just a message")).body.promptId;
      expect((await untilTurnEnds(sse, plain)).at(-1)!.data).toMatchObject({ message: expect.stringContaining("just a message"), code: "-32000" });

      const ok = (await s.prompt("@say fine")).body.promptId;
      expect((await untilTurnEnds(sse, ok)).at(-1)!.data).toMatchObject({ stopReason: "end_turn" });
    });
  });

  describe("clients going away", () => {
    test("closing the event stream, even the prompt originator's, never cancels the prompt", async () => {
      await using s = await openSession(d);
      const sse = await s.events({ "X-Svc-Client-Id": s.clientId });
      const epoch = sse.headers.get("x-svc-event-epoch")!;
      const { promptId } = (await s.prompt("@stream 6 30", { clientId: s.clientId })).body;
      await sse.waitFor("session_update", (f) => f.data.update.sessionUpdate === "agent_message_chunk");
      sse.close();
      const lastSeen = sse.frames.at(-1)!.id!;
      await until(async () => (await activeSseStreams(d)) === 0, 5000, "the daemon to see the stream go");

      await using again = await s.events({ "Last-Event-ID": String(lastSeen), "X-Svc-Event-Epoch": epoch });
      const end = (await untilTurnEnds(again, promptId)).at(-1)!;
      expect(end.event).toBe("turn_complete");
      expect(end.data.stopReason).toBe("end_turn");
      expect(again.frames.filter(isAgentChunk).length).toBeGreaterThan(0);
      expect(again.frames.some((f) => f.event === "prompt_cancelled")).toBe(false);
      expect(await d.sentToAgent("session/cancel", s.id)).toHaveLength(0);
    });
  });
});

describe("the agent child crashing", () => {
  test("mid-turn: exactly one turn_error for the running prompt and each queued one, then session_died", async () => {
    await using d = await fakeAgentDaemon();
    await using s = await openSession(d);
    await using sse = await s.events();
    // Hold the turn on a permission so the other prompts are surely queued before the crash.
    const running = (await s.prompt("@permission\n@crash 3")).body.promptId;
    const request = await sse.waitFor("permission_request");
    const queued = [(await s.prompt("@say a")).body.promptId, (await s.prompt("@say b")).body.promptId];
    expect((await s.vote(request.data.requestId, { outcome: "selected", optionId: "proceed_once" })).status).toBe(200);

    const frames = await readToEnd(sse);
    const last = frames.at(-1)!;
    expect(last.event).toBe("session_died");
    expect(last.data).toMatchObject({ sessionId: s.id, exitCode: 3 });
    for (const promptId of [running, ...queued]) {
      const ends = terminalsOf(frames, promptId);
      expect(ends, promptId).toHaveLength(1);
      expect(ends[0]!.event).toBe("turn_error");
      expect(ends[0]!.data).toMatchObject({ sessionId: s.id, promptId, code: "channel_closed", message: expect.any(String) });
    }
    expect(frames.filter(isTerminal).map((f) => f.data.promptId)).toEqual([running, ...queued]);
    expect(frames.filter((f) => f.event === "session_died")).toHaveLength(1);
    // The queued prompts were never started on the dead child (no echo, nothing sent to an agent).
    expect(frames.filter((f) => f.event === "pending_prompt_started")).toEqual([]);
    expect(frames.filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "user_message_chunk").map((f) => f.envelope.promptId)).toEqual([running]);
    expect((await d.wire()).filter((e) => e.method === "session/prompt")).toHaveLength(1);
    expect((await d.fetch(`/session/${s.id}/events`)).status).toBe(404);
  });
});
