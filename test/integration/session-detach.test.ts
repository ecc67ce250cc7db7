/**
 * `POST /session/:id/detach` (protocol-notes §2.18), as the reference's web UI sends it when it
 * leaves a session: 204; the client's id is released; a session left with no registered client, no
 * event stream and no running work, queued prompt or pending permission is closed
 * (`session_closed` reason `last_client_detached`) and stays restorable. Detaching from a session
 * or with an id that is not there is a 204 that changes nothing; a malformed id is a 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession } from "../helpers/prompt-session.ts";
import { until } from "../helpers/until.ts";

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

const detach = (sessionId: string, clientId?: string) =>
  d.fetch(`/session/${encodeURIComponent(sessionId)}/detach`, { method: "POST", headers: clientId === undefined ? {} : { "X-Svc-Client-Id": clientId } });
const statusOf = async (sessionId: string) => (await d.json("GET", `/session/${sessionId}/status`)).status;
const clientCount = async (sessionId: string) => (await d.json("GET", `/session/${sessionId}/status`)).body.clientCount as number;

describe("POST /session/:id/detach", () => {
  test("the last client leaving closes the session; it stays restorable and a load brings it back", async () => {
    const { sessionId, clientId } = await d.createSession({ sessionScope: "thread" });
    const res = await detach(sessionId, clientId);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await statusOf(sessionId)).toBe(404);
    expect((await d.json("GET", `/session/${sessionId}/status`)).body).toMatchObject({ code: "session_not_found", restorable: true });
    await until(async () => (await d.wire()).some((e) => e.method === "session/close"), 5000, "session/close to reach the agent");
    const loaded = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(loaded.status).toBe(200);
    expect(await statusOf(sessionId)).toBe(200);
    await d.fetch(`/session/${sessionId}`, { method: "DELETE" });
  });

  test("an open event stream holds the session; once it ends, the next detach closes it (session_closed, last_client_detached)", async () => {
    const { sessionId, clientId } = await d.createSession({ sessionScope: "thread" });
    const watcher = await d.events(sessionId);
    expect((await detach(sessionId, clientId)).status).toBe(204);
    expect(await statusOf(sessionId)).toBe(200);
    expect(await clientCount(sessionId)).toBe(0);
    await watcher[Symbol.asyncDispose]();
    // No client id is left: a header-less detach closes it once the daemon has seen the stream go.
    await until(async () => (await detach(sessionId)).status === 204 && (await statusOf(sessionId)) === 404, 5000, "a detach to close the session");
    const transcript = await d.json("GET", `/session/${sessionId}/transcript?limit=500`);
    const closed = JSON.stringify(transcript.body);
    expect(closed).toContain("session_closed");
    expect(closed).toContain("last_client_detached");
  });

  test("another registered client keeps the session open; the id that left is refused afterwards", async () => {
    await using s = await openSession(d, "single");
    const other = await s.addClient();
    expect(await clientCount(s.id)).toBe(2);
    expect((await detach(s.id, s.clientId)).status).toBe(204);
    expect(await statusOf(s.id)).toBe(200);
    expect(await clientCount(s.id)).toBe(1);
    const stale = await d.json("POST", `/session/${s.id}/heartbeat`, {}, { "X-Svc-Client-Id": s.clientId });
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ code: "invalid_client_id", clientId: s.clientId });
    expect((await detach(s.id, other)).status).toBe(204);
    expect(await statusOf(s.id)).toBe(404);
  });

  test("running work keeps the session open after its client leaves", async () => {
    await using s = await openSession(d);
    await using sse = await s.events();
    // Sent without the id, so the prompt does not hold it: only the work holds the session.
    const admitted = await s.prompt("@permission", { clientId: null });
    expect(admitted.status).toBe(202);
    await sse.waitFor("permission_request");
    await sse[Symbol.asyncDispose]();
    expect((await detach(s.id, s.clientId)).status).toBe(204);
    expect(await clientCount(s.id)).toBe(0);
    expect(await statusOf(s.id)).toBe(200);
  });

  test("an unknown session or id is a 204 that changes nothing; a malformed id is a 400", async () => {
    expect((await detach("no-such-session")).status).toBe(204);
    await using s = await openSession(d);
    expect((await detach(s.id, "client_not-registered")).status).toBe(204);
    expect(await statusOf(s.id)).toBe(200);
    expect(await clientCount(s.id)).toBe(1);
    const malformed = await detach(s.id, "not a token!");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: "invalid_client_id" });
    expect(await statusOf(s.id)).toBe(200);
  });

  test("hostile spellings: a trailing slash and GET are not the route; an oversized id is refused", async () => {
    await using s = await openSession(d);
    expect((await d.fetch(`/session/${s.id}/detach/`, { method: "POST", headers: { "X-Svc-Client-Id": s.clientId } })).status).toBe(404);
    expect((await d.fetch(`/session/${s.id}/detach`)).status).toBe(404);
    expect((await detach(s.id, "x".repeat(129))).status).toBe(400);
    expect(await statusOf(s.id)).toBe(200);
  });
});
