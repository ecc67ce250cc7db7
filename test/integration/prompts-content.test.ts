/**
 * What a prompt may contain, against a real fake-agent child: ACP content blocks validated by
 * schema (each block type with its own members; anything else is a 400 `{error}` that admits
 * nothing); members a block type does not define are dropped; free-form members nest no deeper than
 * MAX_CONTENT_DEPTH. A prompt that could not be published or listed is refused before its 202, so it
 * can neither take the daemon down nor break `pending-prompts`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BAD_PROMPT } from "../../src/server/routes/prompt-schemas.ts";
import { MAX_CONTENT_DEPTH } from "../../src/sessions/prompt-content.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession, untilTurnEnds } from "../helpers/prompt-session.ts";

/** `{a: {a: … {a: "leaf"}}}` with `levels` objects, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: "leaf" };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** `[[[…]]]` with `levels` arrays, as JSON text (JSON.stringify would overflow on the deep ones). */
const deepArrayJson = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

describe("content blocks", () => {
  test("every ACP block type is admitted and echoed; members a type does not define are dropped", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const blocks = [
      { type: "text", text: "hello", annotations: { audience: ["user"], priority: 1 }, _meta: { tag: { deep: [1, 2] } } },
      { type: "image", data: "aGk=", mimeType: "image/png", uri: null },
      { type: "audio", data: "aGk=", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///tmp/x.txt", name: "x.txt", size: 3 },
      { type: "resource", resource: { uri: "file:///tmp/y.txt", text: "why", mimeType: "text/plain" } },
      { type: "resource", resource: { uri: "file:///tmp/z.bin", blob: "AAE=" } },
    ];
    const admitted = await s.prompt("", { body: { prompt: [...blocks, { type: "text", text: "extra", extra: [[["dropped"]]] }] } });
    expect(admitted.status).toBe(202);
    const echoes = (await untilTurnEnds(sse, admitted.body.promptId)).filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "user_message_chunk");
    expect(echoes.map((f) => f.data.update.content)).toEqual([...blocks, { type: "text", text: "extra" }]);
    const sent = (await d.sentToAgent("session/prompt", s.id)).at(-1)!.params as { prompt: unknown[] };
    expect(sent.prompt).toEqual([...blocks, { type: "text", text: "extra" }]);
  });

  test("blocks that are not ACP content blocks are 400 {error} and admit nothing", async () => {
    await using s = await openSession(d);
    const bad: unknown[] = [
      { type: "video", data: "x", mimeType: "video/mp4" },
      { type: "image", data: "aGk=" },
      { type: "image", mimeType: "image/png" },
      { type: "audio", data: 5, mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///x" },
      { type: "resource", resource: { uri: "file:///x" } },
      { type: "resource", resource: "file:///x" },
      { type: "text", text: "x", annotations: { priority: "high" } },
      { type: "text", text: "x", _meta: [] },
      { type: "resource_link", uri: "file:///x", name: "x", size: "3" },
    ];
    for (const block of bad) {
      const res = await s.prompt("", { body: { prompt: [block] } });
      expect({ block, status: res.status, body: res.body }).toEqual({ block, status: 400, body: { error: BAD_PROMPT } });
    }
    expect((await s.pending()).body).toEqual({ pendingPrompts: [] });
  });
});

describe("nesting", () => {
  test(`free-form members may nest ${MAX_CONTENT_DEPTH} levels deep in a block, and no deeper`, async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    // The block is level 1 and `_meta` level 2, so its value may hold MAX_CONTENT_DEPTH - 2 levels.
    const fits = await s.prompt("", { body: { prompt: [{ type: "text", text: "deep", _meta: { x: nested(MAX_CONTENT_DEPTH - 2) } }] } });
    expect(fits.status).toBe(202);
    const echo = await sse.waitFor("session_update", (f) => f.envelope.promptId === fits.body.promptId);
    expect(echo.data.update.content._meta).toEqual({ x: nested(MAX_CONTENT_DEPTH - 2) });
    await untilTurnEnds(sse, fits.body.promptId);

    const tooDeep = await s.prompt("", { body: { prompt: [{ type: "text", text: "deeper", _meta: { x: nested(MAX_CONTENT_DEPTH - 1) } }] } });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body).toEqual({ error: expect.stringContaining(`${MAX_CONTENT_DEPTH} levels`) });
    expect((await s.pending()).body).toEqual({ pendingPrompts: [] });
  });

  test("a block nested 50,000 levels deep is refused before its 202; the daemon and pending-prompts carry on", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    // A running prompt, so a copy of the hostile one would have been queued (and listed) behind it.
    const running = (await s.prompt("@hang")).body.promptId;
    for (const member of [`"_meta":{"x":${deepArrayJson(50_000)}}`, `"annotations":{"_meta":{"x":${deepArrayJson(50_000)}}}`]) {
      const body = `{"prompt":[{"type":"text","text":"hi",${member}}]}`;
      const res = await d.fetch(`/session/${s.id}/prompt`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      expect(res.status, member.slice(0, 20)).toBe(400);
      expect(await res.json()).toMatchObject({ error: expect.any(String) });
    }
    const pending = await s.pending();
    expect(pending.status).toBe(200);
    expect(pending.body.pendingPrompts.map((p: { promptId: string }) => p.promptId)).toEqual([running]);
    expect((await d.fetch("/health")).status).toBe(200);

    expect((await s.cancel()).status).toBe(204);
    await untilTurnEnds(sse, running);
    const ok = await s.prompt("@say still here");
    expect(ok.status).toBe(202);
    expect((await untilTurnEnds(sse, ok.body.promptId)).at(-1)!.data).toMatchObject({ stopReason: "end_turn" });
  });
});
