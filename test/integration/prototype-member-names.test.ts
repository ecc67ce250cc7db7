/**
 * A member named after an `Object.prototype` member (`constructor`, `toString`, `__proto__`, …) is
 * an undeclared member like any other: in a query, a JSON body or a nested content block it is
 * ignored or dropped exactly as `foo` is, never refused, and never carried on to the queue, the
 * event echo, the journal or the agent (server/schemas/own-properties.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession, untilTurnEnds } from "../helpers/prompt-session.ts";

/** Names every plain object inherits, and `__proto__`, which JSON.parse makes an own member. */
const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf", "__proto__", "__defineGetter__"];
/** The control: an undeclared member with an ordinary name. */
const ORDINARY = "foo";
/** A value no answer, event or message may carry once its member is dropped. */
const MARKER = "prototype-member-marker";

/** `{...base, [name]: value}` as JSON text, with `name` an own member even when it is `__proto__`. */
const withMember = (base: Record<string, unknown>, name: string, value: unknown) => JSON.stringify({ ...base, [name]: value });

let d: FakeAgentDaemon;
let workspaceId: string;
beforeAll(async () => {
  d = await fakeAgentDaemon();
  workspaceId = (await d.json<{ workspaces: { id: string }[] }>("GET", "/capabilities")).body.workspaces[0]!.id;
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

describe("query members", () => {
  test("are ignored whatever their name: the same status as an ordinary undeclared member", async () => {
    await using s = await openSession(d);
    const routes = [
      "/health",
      "/health?deep=1",
      "/capabilities?x=1",
      "/daemon/status",
      "/file?path=missing.txt",
      `/workspaces/${workspaceId}/sessions`,
      `/workspace/${workspaceId}/sessions`,
      `/session/${s.id}/transcript`,
      `/session/${s.id}/export?format=json`,
    ];
    const seen: string[] = [];
    const expected: string[] = [];
    for (const route of routes) {
      const join = route.includes("?") ? "&" : "?";
      const control = (await d.fetch(`${route}${join}${ORDINARY}=1`)).status;
      expect(control, route).toBeLessThan(500);
      for (const name of PROTOTYPE_NAMES) {
        const res = await d.fetch(`${route}${join}${encodeURIComponent(name)}=1`);
        await res.body?.cancel();
        seen.push(`${route} ?${name} → ${res.status}`);
        expected.push(`${route} ?${name} → ${control}`);
      }
    }
    expect(seen).toEqual(expected);
  });
});

describe("JSON body members", () => {
  test("top-level: admitted like an ordinary undeclared member, on the prompt, session and metadata routes", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    for (const name of [ORDINARY, ...PROTOTYPE_NAMES]) {
      const prompt = await d.fetch(`/session/${s.id}/prompt`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: withMember({ prompt: [{ type: "text", text: "hi" }] }, name, 1),
      });
      expect({ name, status: prompt.status }).toEqual({ name, status: 202 });
      await untilTurnEnds(sse, ((await prompt.json()) as { promptId: string }).promptId); // one at a time: the queue is bounded
      const metadata = await d.fetch(`/session/${s.id}/metadata`, {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: withMember({ displayName: "named" }, name, { evil: MARKER }),
      });
      expect({ name, status: metadata.status }).toEqual({ name, status: 200 });
      expect(await metadata.text()).not.toContain(MARKER);
      const create = await d.fetch("/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: withMember({}, name, { evil: MARKER }) });
      expect({ name, status: create.status }).toEqual({ name, status: 200 });
      expect(await create.text()).not.toContain(MARKER);
    }
  });

  test("in a content block: dropped before the queue, so neither the echo, the journal nor the agent sees them", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    for (const name of [ORDINARY, ...PROTOTYPE_NAMES]) {
      const block = JSON.parse(withMember({ type: "text", text: `q-${name}` }, name, { evil: MARKER })) as Record<string, unknown>;
      const admitted = await s.prompt("", { body: { prompt: [block] } });
      expect({ name, status: admitted.status }).toEqual({ name, status: 202 });
      const echoes = (await untilTurnEnds(sse, admitted.body.promptId)).filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "user_message_chunk");
      expect(JSON.stringify(echoes.map((f) => f.data.update.content))).toBe(JSON.stringify([{ type: "text", text: `q-${name}` }]));
    }
    const sent = (await d.sentToAgent("session/prompt", s.id)).map((e) => (e.params as { prompt: unknown[] }).prompt);
    expect(sent).toHaveLength(1 + PROTOTYPE_NAMES.length);
    expect(JSON.stringify(sent)).not.toContain(MARKER);
    const transcript = await d.fetch(`/session/${s.id}/transcript`);
    expect(transcript.status).toBe(200);
    const text = await transcript.text();
    expect(text).toContain("q-constructor");
    expect(text).not.toContain(MARKER);
  });
});
