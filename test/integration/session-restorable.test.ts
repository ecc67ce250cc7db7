/**
 * The 404 `session_not_found` of a route that needs a live session says whether the session can be
 * restored: `restorable: true` when it is persisted (closed, or left by a daemon that stopped) and a
 * load brings it back; absent for a deleted, unknown or archived session, and whenever the catalog
 * cannot be read (a daemon on another daemon's data dir).
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

/** Routes that need the session live, each asked about `id`. */
const liveRoutes = (id: string): [string, string, unknown?][] => [
  ["GET", `/session/${id}/events`],
  ["GET", `/session/${id}/status`],
  ["POST", `/session/${id}/prompt`, { prompt: [{ type: "text", text: "hello" }] }],
  ["POST", `/session/${id}/cancel`, {}],
  ["POST", `/session/${id}/heartbeat`, {}],
  ["DELETE", `/session/${id}`],
];

/** The status and body every live route answers about `id` (they must all agree). */
async function askLiveRoutes(d: FakeAgentDaemon, id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const replies = [];
  for (const [method, path, body] of liveRoutes(id)) {
    const reply = await d.json(method, path, body, method === "GET" && path.endsWith("/events") ? { accept: "text/event-stream" } : {});
    replies.push({ route: `${method} ${path}`, status: reply.status, body: reply.body });
  }
  const [first] = replies;
  for (const reply of replies) expect({ route: reply.route, status: reply.status, body: reply.body }).toEqual({ route: reply.route, status: first!.status, body: first!.body });
  return { status: first!.status, body: first!.body };
}

/** The 404's body; `persistedState` given: restorable, ended that way. */
const notFound = (sessionId: string, persistedState?: "closed" | "restorable" | "interrupted") => ({
  error: `No session with id "${sessionId}"`,
  code: "session_not_found",
  sessionId,
  ...(persistedState ? { restorable: true, persistedState } : {}),
});

describe("404 session_not_found says restorable", () => {
  test("a closed session is restorable (and a load brings it back); deleted, archived and unknown ones are not", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId: closed } = await d.createSession({ sessionScope: "thread" });
    const { sessionId: deleted } = await d.createSession({ sessionScope: "thread" });
    const { sessionId: archived } = await d.createSession({ sessionScope: "thread" });
    for (const id of [closed, deleted, archived]) expect((await d.json("DELETE", `/session/${id}`)).status).toBe(204);
    expect((await d.json("POST", "/sessions/delete", { sessionIds: [deleted] })).status).toBe(200);
    expect((await d.json("POST", "/sessions/archive", { sessionIds: [archived] })).status).toBe(200);

    expect(await askLiveRoutes(d, closed)).toEqual({ status: 404, body: notFound(closed, "closed") });
    expect(await askLiveRoutes(d, deleted)).toEqual({ status: 404, body: notFound(deleted) });
    expect(await askLiveRoutes(d, archived)).toEqual({ status: 404, body: notFound(archived) });
    expect(await askLiveRoutes(d, "no-such-session")).toEqual({ status: 404, body: notFound("no-such-session") });

    // The promise holds: the load restores it, and the routes find it live.
    expect((await d.json("POST", `/session/${closed}/load`, {})).status).toBe(200);
    expect((await d.json("GET", `/session/${closed}/status`)).status).toBe(200);
  });

  test("after a restart on the same data dir a session of the previous daemon is restorable", async () => {
    await using home = tempDir("svc-home-");
    await using first = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await first.createSession({ sessionScope: "thread" });
    await first.stop();
    await using again = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: first.workspace });
    expect(await askLiveRoutes(again, sessionId)).toEqual({ status: 404, body: notFound(sessionId, "restorable") });
  });

  test("a daemon that cannot read the catalog (another daemon owns the data dir) answers 503 store_unavailable, never a 404 or restorable", async () => {
    await using home = tempDir("svc-home-");
    await using owner = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await owner.createSession({ sessionScope: "thread" });
    expect((await owner.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    expect((await owner.json("GET", `/session/${sessionId}/events`)).body.restorable).toBe(true);

    await using second = await fakeAgentDaemon([], { env: { SVC_HOME: home.path }, workspace: owner.workspace });
    // It cannot tell whether the session exists: it says so, and promises nothing.
    for (const [method, path, body] of liveRoutes(sessionId)) {
      const reply = await second.json(method, path, body);
      expect({ route: `${method} ${path}`, status: reply.status, code: reply.body.code, restorable: reply.body.restorable }).toEqual({
        route: `${method} ${path}`,
        status: 503,
        code: "store_unavailable",
        restorable: undefined,
      });
    }
  });

  test("/openapi.json declares restorable on the error body", async () => {
    await using d = await fakeAgentDaemon();
    const doc = (await d.json("GET", "/openapi.json")).body;
    expect(doc.components.schemas.ErrorBody.properties.restorable).toMatchObject({ const: true, description: expect.stringContaining("POST /session/:id/load") });
  });
});
