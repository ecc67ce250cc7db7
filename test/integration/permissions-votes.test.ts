/**
 * Permission votes over HTTP against a real fake-agent child (default `first-responder` policy):
 * the request/vote/resolve round trip, lost-vote races, validation, the legacy route, cancelled
 * outcomes, the answer timeout, cancel mid-permission, isolation between sessions, and the counts
 * the discovery routes report.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { agentChunks, openSession, untilTurnEnds, type TestSession } from "../helpers/prompt-session.ts";
import type { SseClient, SseFrame } from "../helpers/sse-client.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BAD_SHAPE = "`outcome` must be `{ outcome: \"cancelled\" }` or `{ outcome: \"selected\", optionId: string }`";
const proceedOnce = { outcome: "selected", optionId: "proceed_once" };

/** Starts a prompt that asks for permission; resolves with its id and the permission_request frame. */
async function askPermission(s: TestSession, sse: SseClient, text = "@permission"): Promise<{ promptId: string; request: SseFrame }> {
  const admitted = await s.prompt(text, { clientId: s.clientId });
  expect(admitted.status).toBe(202);
  const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === admitted.body.promptId);
  return { promptId: admitted.body.promptId, request };
}

/** The session's newest event id: a prompt's admission reports it before that prompt publishes anything. */
async function lastEventId(s: TestSession): Promise<number> {
  const admitted = await s.prompt("@say probe");
  expect(admitted.status).toBe(202);
  return admitted.body.lastEventId;
}

const deepHealth = async (d: FakeAgentDaemon) => (await (await d.fetch("/health?deep")).json()) as { pendingPermissions: number; activePrompts: number };
const daemonStatus = async (d: FakeAgentDaemon) => (await (await d.fetch("/daemon/status")).json()) as any;

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

describe("the vote round trip", () => {
  test("permission_request carries a daemon-minted requestId, the tool call and the options; proceed_once resolves it and the agent goes on", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse, "@permission Write notes.md\n@say after");
    expect(request.id).toBeNumber();
    expect(request.envelope).toMatchObject({ promptId, originatorClientId: s.clientId });
    expect(request.data).toEqual({
      requestId: expect.stringMatching(UUID),
      sessionId: s.id,
      toolCall: expect.objectContaining({ toolCallId: expect.any(String), kind: "edit", status: "pending" }),
      options: [
        { optionId: "proceed_always", name: expect.any(String), kind: "allow_always" },
        { optionId: "proceed_once", name: expect.any(String), kind: "allow_once" },
        { optionId: "cancel", name: expect.any(String), kind: "reject_once" },
      ],
    });
    // The requestId is the daemon's own, not the agent's tool call id.
    expect(request.data.requestId).not.toBe(request.data.toolCall.toolCallId);

    const vote = await s.vote(request.data.requestId, proceedOnce, { clientId: s.clientId });
    expect(vote.status).toBe(200);
    expect(vote.body).toEqual({});
    const turn = await untilTurnEnds(sse, promptId);
    const resolved = turn[0]!;
    expect(resolved.event).toBe("permission_resolved");
    expect(resolved.data).toEqual({ requestId: request.data.requestId, sessionId: s.id, outcome: proceedOnce, voterClientId: s.clientId });
    expect(resolved.envelope).toMatchObject({ promptId, originatorClientId: s.clientId });
    expect(agentChunks(turn)).toEqual(["permission: selected proceed_once", "after"]);
    expect(turn.at(-1)!.data).toMatchObject({ stopReason: "end_turn" });
  });

  test("of five parallel votes exactly one wins; the others get the lost-vote 404 and publish nothing", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    const { requestId } = request.data;
    const votes = await Promise.all(
      ["proceed_once", "proceed_always", "cancel", "proceed_once", "proceed_always"].map((optionId) => s.vote(requestId, { outcome: "selected", optionId })),
    );
    const won = votes.filter((v) => v.status === 200);
    const lost = votes.filter((v) => v.status === 404);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(4);
    for (const v of lost) expect(v.body).toEqual({ error: "No pending permission request for session", sessionId: s.id, requestId });

    const turn = await untilTurnEnds(sse, promptId);
    const resolved = sse.frames.filter((f) => f.event === "permission_resolved");
    expect(resolved).toHaveLength(1);
    expect(agentChunks(turn)).toEqual([`permission: selected ${resolved[0]!.data.outcome.optionId}`]);
    // Every vote has been answered, so anything they published is on the bus by now: nothing was.
    expect(await lastEventId(s)).toBe(turn.at(-1)!.id!);
    expect(sse.frames.map((f) => f.event)).not.toContain("permission_already_resolved");
  });

  test("a flood of late votes gets 404s and leaves the replay ring untouched", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    expect((await s.vote(request.data.requestId, proceedOnce)).status).toBe(200);
    const turn = await untilTurnEnds(sse, promptId);
    const lastId = turn.at(-1)!.id!;

    for (let batch = 0; batch < 10; batch++) {
      const late = await Promise.all(Array.from({ length: 50 }, (_, i) => s.vote(request.data.requestId, i % 2 ? proceedOnce : { outcome: "cancelled" }, { clientId: i % 3 ? s.clientId : null })));
      expect(late.map((v) => v.status)).toEqual(Array(50).fill(404));
    }
    expect(await lastEventId(s)).toBe(lastId);
    // A subscriber replaying from the start still gets the whole turn.
    await using replay = await s.events({ "Last-Event-ID": "0" });
    await replay.waitFor("turn_complete", (f) => f.data.promptId === promptId);
    expect(replay.frames.some((f) => f.event === "permission_request" && f.data.requestId === request.data.requestId)).toBe(true);
  });

  test("an option that was not offered is 400 invalid_option_id and leaves the request pending", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    const { requestId } = request.data;
    for (const optionId of ["nope", "__cancelled__"]) {
      const res = await s.vote(requestId, { outcome: "selected", optionId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), code: "invalid_option_id", requestId, optionId });
    }
    expect((await s.vote(requestId, proceedOnce)).status).toBe(200);
    await untilTurnEnds(sse, promptId);
  });

  test("a malformed vote body is 400 {error} and leaves the request pending", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    const { requestId } = request.data;
    const url = `/session/${s.id}/permission/${requestId}`;
    for (const body of [{}, { outcome: "selected" }, { outcome: {} }, { outcome: { outcome: "selected" } }, { outcome: { outcome: "selected", optionId: 5 } }, { outcome: { outcome: "selected", optionId: "" } }, { outcome: { outcome: "maybe" } }, []]) {
      const res = await d.fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toEqual({ error: BAD_SHAPE });
    }
    const malformed = await d.fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: "Invalid JSON in request body" });
    expect(sse.frames.some((f) => f.event === "permission_resolved")).toBe(false);
    expect((await s.vote(requestId, proceedOnce)).status).toBe(200);
    await untilTurnEnds(sse, promptId);
  });

  test("a vote for an unknown request, or on an unknown session, is a 404", async () => {
    await using s = await openSession(d);
    const unknown = await s.vote("no-such-request", proceedOnce);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "No pending permission request for session", sessionId: s.id, requestId: "no-such-request" });
    const res = await d.fetch("/session/nope/permission/x", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ outcome: proceedOnce }) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "session_not_found" });
  });

  test("the legacy POST /permission/:requestId resolves a request of the primary workspace", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    const { requestId } = request.data;
    const post = (id: string) => d.fetch(`/permission/${id}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ outcome: { outcome: "selected", optionId: "proceed_always" } }) });
    const res = await post(requestId);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const turn = await untilTurnEnds(sse, promptId);
    expect(turn[0]!.data).toMatchObject({ requestId, outcome: { outcome: "selected", optionId: "proceed_always" } });
    expect(agentChunks(turn)).toEqual(["permission: selected proceed_always"]);

    const again = await post(requestId);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: "No pending permission request", requestId });
    expect(await lastEventId(s)).toBe(turn.at(-1)!.id!);
  });
});

describe("cancelling a permission", () => {
  test("a {outcome: cancelled} vote resolves the request as cancelled and the agent goes on", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    expect((await s.vote(request.data.requestId, { outcome: "cancelled" })).status).toBe(200);
    const turn = await untilTurnEnds(sse, promptId);
    expect(turn[0]!.data).toEqual({ requestId: request.data.requestId, sessionId: s.id, outcome: { outcome: "cancelled" } });
    expect(agentChunks(turn)).toEqual(["permission: cancelled"]);
    expect(turn.at(-1)!.data.stopReason).toBe("end_turn");
  });

  test("cancelling the prompt mid-permission resolves the request as cancelled and ends the turn cancelled", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    // A few rounds: how the agent orders the cancel against the permission answer varies.
    for (let round = 0; round < 3; round++) {
      const { promptId, request } = await askPermission(s, sse);
      expect((await s.cancel()).status).toBe(204);
      const turn = await untilTurnEnds(sse, promptId);
      const resolved = turn.find((f) => f.event === "permission_resolved")!;
      expect(resolved.data).toMatchObject({ requestId: request.data.requestId, outcome: { outcome: "cancelled" } });
      expect(turn.findIndex((f) => f.event === "prompt_cancelled")).toBeLessThan(turn.indexOf(resolved));
      expect(turn.at(-1)!.event).toBe("turn_complete");
      expect(turn.at(-1)!.data).toMatchObject({ stopReason: "cancelled", promptCancelled: { cancelledAt: expect.any(String), elapsedMs: expect.any(Number) } });
      expect((await s.vote(request.data.requestId, proceedOnce)).status).toBe(404);
    }
    expect(await d.sentToAgent("session/cancel", s.id)).toHaveLength(3);
  });

  test("--permission-response-timeout-ms resolves an unanswered request as cancelled", async () => {
    await using timed = await fakeAgentDaemon(["--permission-response-timeout-ms", "150"]);
    await using s = await openSession(timed);
    await using sse = await s.events();
    const { promptId, request } = await askPermission(s, sse);
    const turn = await untilTurnEnds(sse, promptId);
    expect(turn[0]!.event).toBe("permission_resolved");
    expect(turn[0]!.data).toMatchObject({ requestId: request.data.requestId, outcome: { outcome: "cancelled" } });
    expect(turn[0]!.data.voterClientId).toBeUndefined();
    expect(agentChunks(turn)).toEqual(["permission: cancelled"]);
    expect(turn.at(-1)!.data.stopReason).toBe("end_turn");
  });
});

describe("isolation and reporting", () => {
  test("one session's unanswered permission never blocks another session's turns", async () => {
    await using blocked = await openSession(d);
    await using blockedSse = await blocked.events();
    const { promptId, request } = await askPermission(blocked, blockedSse);

    await using free = await openSession(d);
    await using freeSse = await free.events();
    for (const text of ["@say one", "@stream 3 0"]) {
      const admitted = await free.prompt(text);
      expect((await untilTurnEnds(freeSse, admitted.body.promptId)).at(-1)!.data.stopReason).toBe("end_turn");
    }
    // Still waiting, and still answerable.
    expect(blockedSse.frames.some((f) => f.event === "permission_resolved" || f.event === "turn_complete")).toBe(false);
    expect((await blocked.vote(request.data.requestId, proceedOnce)).status).toBe(200);
    await untilTurnEnds(blockedSse, promptId);
  });

  test("/health?deep and /daemon/status report the pending permission and the active prompt", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    expect(await deepHealth(d)).toMatchObject({ pendingPermissions: 0, activePrompts: 0 });
    const { promptId, request } = await askPermission(s, sse);

    expect(await deepHealth(d)).toMatchObject({ status: "ok", pendingPermissions: 1, activePrompts: 1, activeWork: true });
    const status = await daemonStatus(d);
    expect(status.runtime.permissions).toEqual({ pending: 1, policy: "first-responder" });
    expect(status.runtime.prompts).toEqual({ active: 1 });
    expect(status.issues.map((i: { code: string }) => i.code)).toContain("pending_permissions");

    expect((await s.vote(request.data.requestId, proceedOnce)).status).toBe(200);
    await untilTurnEnds(sse, promptId);
    expect(await deepHealth(d)).toMatchObject({ pendingPermissions: 0, activePrompts: 0, activeWork: false });
    const after = await daemonStatus(d);
    expect(after.runtime.permissions.pending).toBe(0);
    expect(after.issues.map((i: { code: string }) => i.code)).not.toContain("pending_permissions");
  });
});
