/**
 * `POST /session/:id/branch` on third-party agents (the fake agent): without `session/fork` the
 * branch is a new agent session seeded with the parent's conversation up to the turn; with it, a
 * branch at the latest turn is the agent's own fork, and one at an earlier turn is seeded (ACP's
 * fork cannot be cut). The branch has its own id, shows its parent link in the lists, and leaves
 * the parent as it was. Bounds: unknown session, turn out of range, parent mid-turn, session cap.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WireEntry } from "../fixtures/fake-agent/wire-log.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession, untilTurnEnds, type TestSession } from "../helpers/prompt-session.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";

type PromptParams = { sessionId: string; prompt: { type: string; text?: string }[] };
const promptText = (entry: WireEntry) => (entry.params as PromptParams).prompt.map((b) => b.text ?? "").join("\n");

/** Prompts `s` and waits for its turn to end; returns the prompt id. */
async function turn(s: TestSession, sse: SseClient, text: string): Promise<string> {
  const reply = await s.prompt(text);
  expect(reply.status).toBe(202);
  await untilTurnEnds(sse, reply.body.promptId);
  return reply.body.promptId as string;
}

/** A parent session with two turns ("remember the zebra", then "the lion"), and its stream. */
async function parentWithTwoTurns(d: FakeAgentDaemon) {
  const s = await openSession(d);
  const sse = await s.events({ "Last-Event-ID": "0" });
  const first = await turn(s, sse, "remember the zebra");
  const second = await turn(s, sse, "now the lion");
  return { s, sse, first, second };
}

const listed = async (d: FakeAgentDaemon, sessionId: string) =>
  ((await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`)).body.sessions as Record<string, unknown>[]).find((r) => r.sessionId === sessionId);

describe("branch on an agent without session/fork", () => {
  test("the branch is seeded with the conversation up to the turn, has its own id, and the parent is unchanged", async () => {
    await using d = await fakeAgentDaemon();
    const { s, sse, first } = await parentWithTwoTurns(d);
    await using _s = s;
    await using _sse = sse;
    const parentPrompts = (await d.sentToAgent("session/prompt")).length;

    const reply = await d.json("POST", `/session/${s.id}/branch`, { turnIndex: 0, name: "zebra\u0007 only" });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ parentSessionId: s.id, parentPromptId: first, turnIndex: 0, branchedBy: "seeded", displayName: "zebra only", forkedFrom: { sessionId: s.id } });
    const branch = reply.body.sessionId as string;
    expect(branch).not.toBe(s.id);
    expect(await d.sentToAgent("session/fork")).toHaveLength(0);
    // The parent published the branch.
    const branched = await sse.waitFor("session_branched", () => true);
    expect(branched.data).toMatchObject({ sessionId: s.id, sourceSessionId: s.id, newSessionId: branch, parentPromptId: first });

    // The branch's first prompt carries the parent's conversation up to turn 0, not after it.
    await using bsse = await d.events(branch, { "Last-Event-ID": "0" });
    const prompted = await d.json("POST", `/session/${branch}/prompt`, { prompt: [{ type: "text", text: "@say branch speaking" }] }, { "X-Svc-Client-Id": reply.body.clientId });
    expect(prompted.status).toBe(202);
    await untilTurnEnds(bsse, prompted.body.promptId);
    const sent = (await d.sentToAgent("session/prompt")).slice(parentPrompts);
    expect(sent).toHaveLength(1);
    const text = promptText(sent[0]!);
    expect(text).toContain("User: remember the zebra");
    expect(text).not.toContain("lion");
    expect((sent[0]!.params as PromptParams).sessionId).not.toBe(s.id);

    // The lists show the link; the parent keeps its own conversation and has no link.
    expect(await listed(d, branch)).toMatchObject({ parentSessionId: s.id, parentPromptId: first, displayName: "zebra only" });
    expect((await listed(d, s.id))?.parentSessionId).toBeUndefined();
    expect((await d.json("GET", `/session/${branch}/status`)).body).toMatchObject({ parentSessionId: s.id });
    const parentTurns = (await d.json("GET", `/session/${s.id}/turn-index`)).body;
    expect(parentTurns.totalTurns).toBe(2);
    expect((await d.json("GET", `/session/${branch}/turn-index`)).body.totalTurns).toBe(1);

    // Closed, the branch stays linked in the catalog.
    expect((await d.fetch(`/session/${branch}`, { method: "DELETE" })).status).toBe(204);
    expect(await listed(d, branch)).toMatchObject({ live: false, parentSessionId: s.id, parentPromptId: first });
  });

  test("a branch of a branch holds its grandparent's turns; a branch at an early turn of a long session is seeded; a name is cleaned", async () => {
    await using d = await fakeAgentDaemon();
    const s = await openSession(d);
    await using _s = s;
    await using sse = await s.events({ "Last-Event-ID": "0" });
    await turn(s, sse, "remember the zebra");
    // A later turn of more events than a seed's scan reads: the cut at turn 0 is older than all of them.
    await turn(s, sse, "@stream 5200 0");
    const before = (await d.sentToAgent("session/prompt")).length;

    const b = await d.json("POST", `/session/${s.id}/branch`, { turnIndex: 0, name: `abc\u202Egnp\u2028x${"y".repeat(190)}😀` });
    expect(b.status).toBe(201);
    expect(b.body.displayName).not.toMatch(/[\u202E\u2028]/);
    expect((b.body.displayName as string).isWellFormed()).toBe(true);
    await using bsse = await d.events(b.body.sessionId, { "Last-Event-ID": "0" });
    const bTurn = await d.json("POST", `/session/${b.body.sessionId}/prompt`, { prompt: [{ type: "text", text: "@say b speaking\nthe heron" }] }, { "X-Svc-Client-Id": b.body.clientId });
    await untilTurnEnds(bsse, bTurn.body.promptId);
    const toB = promptText((await d.sentToAgent("session/prompt"))[before]!);
    expect(toB).toContain("User: remember the zebra");

    // A branch of the branch: the grandparent's turn up to the first cut, then the branch's own.
    const c = await d.json("POST", `/session/${b.body.sessionId}/branch`, {});
    expect(c.status).toBe(201);
    await using csse = await d.events(c.body.sessionId, { "Last-Event-ID": "0" });
    const cTurn = await d.json("POST", `/session/${c.body.sessionId}/prompt`, { prompt: [{ type: "text", text: "@say c speaking" }] }, { "X-Svc-Client-Id": c.body.clientId });
    await untilTurnEnds(csse, cTurn.body.promptId);
    const toC = promptText((await d.sentToAgent("session/prompt")).at(-1)!);
    expect(toC).toContain("User: remember the zebra");
    expect(toC).toContain("the heron");
    expect(toC.indexOf("remember the zebra")).toBeLessThan(toC.indexOf("the heron"));
  });

  test("bounds: unknown session 404, a turn the session lacks 400, a parent mid-turn 409, the session cap 503", async () => {
    await using d = await fakeAgentDaemon(["--max-sessions", "2"]);
    await using s = await openSession(d);
    await using sse = await s.events({ "Last-Event-ID": "0" });
    const only = await turn(s, sse, "just one turn");

    const unknown = await d.json("POST", "/session/no-such-session/branch", {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("session_not_found");
    for (const body of [{ turnIndex: 1 }, { promptId: "not-a-turn" }, { turnIndex: 0, promptId: only }]) {
      const bad = await d.json("POST", `/session/${s.id}/branch`, body);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe("branch_point_invalid");
    }
    expect((await d.json("POST", `/session/${s.id}/branch`, { turnIndex: -1 })).status).toBe(400);

    const running = await s.prompt("@hang");
    expect(running.status).toBe(202);
    // Busy from its admission on: running or queued.
    const busy = await d.json("POST", `/session/${s.id}/branch`, {});
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: "branch_while_prompt_active", sessionId: s.id });
    expect((await s.cancel()).status).toBeLessThan(300);
    await untilTurnEnds(sse, running.body.promptId);

    const ok = await d.json("POST", `/session/${s.id}/branch`, { promptId: only });
    expect(ok.status).toBe(201);
    const capped = await d.json("POST", `/session/${s.id}/branch`, {});
    expect(capped.status).toBe(503);
    expect(capped.body.code).toBe("session_limit_exceeded");
  });
});

describe("branch on an agent with session/fork", () => {
  test("a fork answered with the id of a closed session is refused: no session taken over, no parent cycle", async () => {
    await using scratch = tempDir("svc-fork-id-");
    const idFile = join(scratch.path, "fork-id");
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_FORK: "1", FAKE_AGENT_FORK_ID_FILE: idFile } });
    const { s, sse } = await parentWithTwoTurns(d);
    await using _sse = sse;
    const b = await d.json("POST", `/session/${s.id}/branch`, {});
    expect([b.status, b.body.branchedBy]).toEqual([201, "fork"]);
    expect((await d.fetch(`/session/${s.id}`, { method: "DELETE" })).status).toBe(204);
    writeFileSync(idFile, s.id);
    const hostile = await d.json("POST", `/session/${b.body.sessionId}/branch`, {});
    expect([hostile.status, hostile.body.code]).toEqual([502, "agent_protocol_error"]);
    expect(await listed(d, s.id)).toMatchObject({ live: false });
    expect((await listed(d, s.id))?.parentSessionId).toBeUndefined();
    await s[Symbol.asyncDispose]();
  });

  test("at the latest turn the agent forks; at an earlier turn the branch is seeded", async () => {
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_FORK: "1" } });
    const { s, sse, second } = await parentWithTwoTurns(d);
    await using _s = s;
    await using _sse = sse;

    const latest = await d.json("POST", `/session/${s.id}/branch`, {});
    expect(latest.status).toBe(201);
    expect(latest.body).toMatchObject({ branchedBy: "fork", parentPromptId: second, turnIndex: 1, displayName: `${s.id.slice(0, 8)} (branch)` });
    const forks = await d.sentToAgent("session/fork");
    expect(forks).toHaveLength(1);
    expect(forks[0]!.params).toMatchObject({ sessionId: s.id, cwd: d.workspace });
    expect((forks[0]!.params as { _meta?: unknown })._meta).toBeUndefined();
    // A fork is not seeded: the agent holds the conversation itself.
    const before = (await d.sentToAgent("session/prompt")).length;
    await using bsse = await d.events(latest.body.sessionId, { "Last-Event-ID": "0" });
    const prompted = await d.json("POST", `/session/${latest.body.sessionId}/prompt`, { prompt: [{ type: "text", text: "@say forked" }] }, { "X-Svc-Client-Id": latest.body.clientId });
    await untilTurnEnds(bsse, prompted.body.promptId);
    const [sent] = (await d.sentToAgent("session/prompt")).slice(before);
    expect(promptText(sent!)).toBe("@say forked");

    const earlier = await d.json("POST", `/session/${s.id}/branch`, { turnIndex: 0 });
    expect(earlier.status).toBe(201);
    expect(earlier.body.branchedBy).toBe("seeded");
    expect(await d.sentToAgent("session/fork")).toHaveLength(1);
  });
});
