/**
 * The session list records, whole, through HTTP. Response schemas normalise every answer (TypeBox
 * Clean drops what a schema does not declare), so a record missing a field from its schema would
 * silently lose it: these tests compare each record with everything the daemon knows about it.
 * Also the persistence routes' query fields: integers of plain digits only, literal unions, each
 * refusal with its code, message and fields.
 */
import { describe, expect, test } from "bun:test";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** A session run for one turn, named, then closed: persisted and not live. */
async function closedSession(d: FakeAgentDaemon): Promise<string> {
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  await using events = await d.events(sessionId);
  expect((await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "closed one" })).status).toBe(200);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say kept" }] });
  await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 20_000);
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  return sessionId;
}

/** A live session with a name, a PR and a permission request pending. */
async function busySession(d: FakeAgentDaemon): Promise<string> {
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  await using events = await d.events(sessionId);
  expect((await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "live one", pr: { number: 7, url: "https://example.test/pr/7", state: "open" } })).status).toBe(200);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@permission Write notes.md\n@say after" }] });
  expect(prompt.status).toBe(202);
  await events.waitFor("permission_request", (f) => f.envelope.promptId === prompt.body.promptId, 20_000);
  return sessionId;
}

describe("session list records, whole", () => {
  test("a live record is its status plus isArchived and live; a persisted one is its catalog row; on every list route", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const closed = await closedSession(d);
    const live = await busySession(d);
    const status = (await d.json("GET", `/session/${live}/status`)).body;
    // Every member of the live status, the pending permission among them.
    expect(status).toMatchObject({ displayName: "live one", titleSource: "manual", prs: [{ number: 7, state: "open" }], isWaitingForPermission: true, pendingInteractionCount: 1 });
    expect(status.pendingInteractions).toEqual([expect.objectContaining({ kind: "permission", title: "Write notes.md", toolCall: expect.any(Object), options: expect.any(Array) })]);

    const liveRecord = { ...status, isArchived: false, live: true };
    const persistedRecord = {
      sessionId: closed,
      workspaceCwd: d.workspace,
      createdAt: ISO,
      updatedAt: ISO,
      displayName: "closed one",
      titleSource: "manual",
      isArchived: false,
      live: false,
      persistedState: "closed",
      clientCount: 0,
      hasActivePrompt: false,
      activeWorkState: "idle",
    };
    const byId = (sessions: { sessionId: string }[]) => Object.fromEntries(sessions.map((s) => [s.sessionId, s]));
    const expected = { [live]: liveRecord, [closed]: persistedRecord };

    for (const path of [`/workspace/${workspaceId(d.workspace)}/sessions`, `/workspaces/${workspaceId(d.workspace)}/sessions`]) {
      const list = await d.json("GET", path);
      expect(list.status).toBe(200);
      expect(Object.keys(list.body)).toEqual(["sessions"]);
      expect(byId(list.body.sessions)).toEqual(expected);
    }

    const catalog = await d.json("POST", "/sessions/catalog", { sessionIds: [live, closed, "nope"] });
    expect(catalog.status).toBe(200);
    expect(catalog.body).toEqual({ sessions: [liveRecord, persistedRecord], missing: ["nope"] });

    const liveState = await d.json("GET", `/workspaces/${workspaceId(d.workspace)}/sessions/live-state`);
    expect(liveState.status).toBe(200);
    expect(liveState.body).toEqual({ v: 1, sessions: [{ ...status, live: true }] });
  });
});

describe("query fields of the persistence routes", () => {
  test("`limit` and `size` take plain digits within their range, and nothing else", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const closed = await closedSession(d);
    const list = `/workspace/${workspaceId(d.workspace)}/sessions`;

    for (const limit of ["1e2", "0x10", " 5", "+5", "5.0", "１", "99999999999999999"]) {
      const reply = await d.json("GET", `/session/${closed}/transcript?limit=${encodeURIComponent(limit)}`);
      expect({ limit, status: reply.status }).toEqual({ limit, status: 400 });
      expect(reply.body).toEqual({ error: "`limit` must be a whole number from 1 to 500", code: "invalid_transcript_limit", maxLimit: 500 });
    }
    for (const size of ["1e2", "0x10", "0", "1001", "-1", ""]) {
      const reply = await d.json("GET", `${list}?size=${encodeURIComponent(size)}`);
      expect({ size, status: reply.status }).toEqual({ size, status: 400 });
      expect(reply.body).toEqual({ error: "`size` must be a whole number from 1 to 1000", code: "invalid_size", maxSize: 1000 });
    }
    // The edges of the ranges, and a leading zero, are numbers like any other.
    for (const limit of ["1", "500", "007"]) expect((await d.json("GET", `/session/${closed}/transcript?limit=${limit}`)).status).toBe(200);
    // 1000: what the reference's web UI asks for its sidebar.
    for (const size of ["1", "500", "1000"]) expect((await d.json("GET", `${list}?size=${size}`)).body.sessions).toHaveLength(1);
  });

  test("`format` and `archiveState` are one of their values; anything else is refused with the value named", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const closed = await closedSession(d);

    for (const format of ["pdf", "HTML", ""]) {
      const reply = await d.json("GET", `/session/${closed}/export?format=${format}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: "Invalid export format", code: "invalid_export_format", format, allowedFormats: ["html", "md", "json", "jsonl"] });
    }
    const html = await d.fetch(`/session/${closed}/export`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toContain("text/html");

    for (const path of [`/workspace/${workspaceId(d.workspace)}/sessions`, `/workspaces/${workspaceId(d.workspace)}/sessions`]) {
      const reply = await d.json("GET", `${path}?archiveState=gone`);
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: "`archiveState` must be active or archived", code: "invalid_archive_state", archiveState: "gone" });
      expect((await d.json("GET", `${path}?archiveState=archived`)).body).toEqual({ sessions: [] });
    }
  });
});

describe("integers in JSON bodies", () => {
  test("a number sent as a string is refused, not coerced", async () => {
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession();
    for (const number of ["7", 7.5, "0x7"]) {
      const reply = await d.json("PATCH", `/session/${sessionId}/metadata`, { pr: { number, url: "https://example.test/pr/7" } });
      expect({ number, status: reply.status }).toEqual({ number, status: 400 });
      expect(reply.body).toMatchObject({ code: "invalid_metadata", field: "pr" });
    }
    expect((await d.json("PATCH", `/session/${sessionId}/metadata`, { pr: { number: 7, url: "https://example.test/pr/7" } })).status).toBe(200);
  });
});
