/**
 * Recap, generation, automatic titles and the turn index over a third-party agent (the fake agent:
 * no model path), so every text is the daemon's own from the journal, and says so; the built-in
 * agent's model path is `agent-builtin-generation.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession, type TestSession } from "../helpers/prompt-session.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Prompts `text` and waits for its turn to complete. */
async function turn(s: TestSession, text: string): Promise<string> {
  await using events = await s.events({ "Last-Event-ID": "0" });
  const reply = await s.prompt(text);
  expect(reply.status).toBe(202);
  await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);
  return reply.body.promptId as string;
}

const status = async (d: FakeAgentDaemon, id: string) => (await d.json("GET", `/session/${id}/status`)).body;

/** The frames of a generation stream: [type, data] pairs. */
async function generation(d: FakeAgentDaemon, id: string, body: unknown): Promise<{ status: number; frames: [string, any][]; text: string }> {
  const res = await d.fetch(`/session/${id}/generate`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  const frames = [...text.matchAll(/^event: (\S+)\ndata: (.*)$/gm)].map((m): [string, any] => [m[1]!, JSON.parse(m[2]!)]);
  return { status: res.status, frames, text };
}

describe("automatic titles", () => {
  test("the first turn titles the session from its first request, stripped and bounded, kept in the catalog and lists", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    await using s = await openSession(d);
    expect(await status(d, s.id)).not.toHaveProperty("displayName");
    await turn(s, "Fix the\u202e flaky   login test\nwith more detail on the next line");
    await until(async () => (await status(d, s.id)).displayName !== undefined, 5000, "the automatic title");
    expect(await status(d, s.id)).toMatchObject({ displayName: "Fix the flaky login test", titleSource: "auto" });
    const listed = (await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`)).body.sessions.find((x: { sessionId: string }) => x.sessionId === s.id);
    expect(listed).toMatchObject({ displayName: "Fix the flaky login test", titleSource: "auto" });
    // Only after the first turn: a later one does not rename it.
    await turn(s, "something else entirely");
    expect((await status(d, s.id)).displayName).toBe("Fix the flaky login test");

    await using long = await openSession(d);
    await turn(long, "word ".repeat(100));
    await until(async () => (await status(d, long.id)).displayName !== undefined, 5000, "the long title");
    const name = (await status(d, long.id)).displayName as string;
    expect(name.length).toBeLessThanOrEqual(80);
    expect(name.endsWith("…")).toBe(true);
  });

  test("never over a title a client set, nor for a session that turned it off", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    await using named = await openSession(d);
    expect((await d.json("PATCH", `/session/${named.id}/metadata`, { displayName: "Mine" })).status).toBe(200);
    await using off = await openSession(d);
    expect((await d.json("PATCH", `/session/${off.id}/metadata`, { autoTitle: false })).body).toMatchObject({ autoTitle: false });
    await using on = await openSession(d);
    await turn(named, "rename me please");
    await turn(off, "rename me please");
    await turn(on, "rename me please");
    // The one that may be titled is, so the others had their chance.
    await until(async () => (await status(d, on.id)).displayName !== undefined, 5000, "the control session's title");
    expect(await status(d, named.id)).toMatchObject({ displayName: "Mine", titleSource: "manual" });
    expect(await status(d, off.id)).not.toHaveProperty("displayName");
  });

  test("ui.autoTitle false in the settings turns them off", async () => {
    await using home = tempDir("svc-home-");
    await Bun.write(`${home.path}/settings.json`, JSON.stringify({ ui: { autoTitle: false } }));
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    await using s = await openSession(d);
    await turn(s, "a request");
    // A recap proves the turn is journaled and the daemon idle; still no title.
    expect((await d.json("POST", `/session/${s.id}/recap`, {})).status).toBe(200);
    expect(await status(d, s.id)).not.toHaveProperty("displayName");
  });
});

describe("recap, generate and the turn index", () => {
  test("answered from the journal, saying so, live or persisted", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    await using s = await openSession(d);
    const empty = await d.json("POST", `/session/${s.id}/recap`, {});
    expect(empty.body).toEqual({ sessionId: s.id, recap: null, source: "local" });
    const first = await turn(s, "Add a README section");
    const second = await turn(s, "@say Done: README updated\n@tool edit README.md");
    const recap = await d.json("POST", `/session/${s.id}/recap`, {});
    expect(recap.status).toBe(200);
    expect(recap.body).toMatchObject({ sessionId: s.id, source: "local", reason: "agent_cannot" });
    expect(recap.body.recap).toContain("2 turns so far.");
    expect(recap.body.recap).toContain('First request: "Add a README section"');
    expect(recap.body.recap).toContain("Done: README updated");
    expect(recap.body.recap).toContain("edit README.md");

    const titled = await generation(d, s.id, { kind: "title" });
    expect(titled.status).toBe(200);
    expect(titled.text.startsWith(": connected\n\n")).toBe(true);
    expect(titled.frames.map(([type]) => type)).toEqual(["started", "delta", "done"]);
    expect(titled.frames[0]![1]).toEqual({ v: 1, type: "started", model: "local", modelSource: "local" });
    expect(titled.frames[1]![1]).toEqual({ v: 1, type: "delta", seq: 0, text: "Add a README section" });
    // A free prompt needs a model path: the reference's 501.
    const free = await d.json("POST", `/session/${s.id}/generate`, { prompt: "Say hi" });
    expect({ status: free.status, code: free.body.code }).toEqual({ status: 501, code: "generation_not_supported" });
    for (const body of [{}, { prompt: "x", kind: "title" }, { prompt: "" }, { prompt: "x".repeat(32 * 1024 + 1) }, { kind: "poem" }]) {
      const bad = await d.json("POST", `/session/${s.id}/generate`, body);
      expect({ body, status: bad.status, code: bad.body.code }).toEqual({ body, status: 400, code: "invalid_prompt" });
    }

    const index = await d.json("GET", `/session/${s.id}/turn-index`);
    expect(index.status).toBe(200);
    expect(index.body).toMatchObject({ v: 1, sessionId: s.id, totalTurns: 2, start: 0 });
    expect(index.body.turns.map((t: { promptId: string; label: string; ordinal: number }) => [t.ordinal, t.promptId, t.label])).toEqual([
      [0, first, "Add a README section"],
      [1, second, "@say Done: README updated @tool edit README.md"],
    ]);
    expect(index.body.turns[0].detail).toBe("Add a README section");
    // A snapshot pins the index: a later turn is not in its pages.
    const snapshot = index.body.snapshot as string;
    await turn(s, "third");
    const pinned = await d.json("GET", `/session/${s.id}/turn-index?snapshot=${snapshot}&start=1&limit=5`);
    expect(pinned.body).toMatchObject({ totalTurns: 2, start: 1 });
    expect(pinned.body.turns).toHaveLength(1);
    expect((await d.json("GET", `/session/${s.id}/turn-index?limit=1`)).body).toMatchObject({ totalTurns: 3, start: 2 });
    expect((await d.json("GET", `/session/${s.id}/turn-index?start=1`)).body.code).toBe("invalid_transcript_cursor");
    expect((await d.json("GET", `/workspaces/${workspaceId(d.workspace)}/session/${s.id}/turn-index`)).body.totalTurns).toBe(3);

    // Closed, the journal still answers.
    expect((await d.fetch(`/session/${s.id}`, { method: "DELETE" })).status).toBe(204);
    const after = await d.json("POST", `/session/${s.id}/recap`, {});
    expect(after.body).toMatchObject({ source: "local", reason: "not_live" });
    expect((await d.json("POST", "/session/nope/recap", {})).status).toBe(404);
  });
});
