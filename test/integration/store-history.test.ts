/**
 * History of closed sessions from the journal: the session list, `/transcript` paging and `/export`
 * in every format, across a daemon restart, without starting an agent.
 */
import { describe, expect, test } from "bun:test";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import type { SseFrame } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const HOSTILE_NAME = `<script>alert("name")</script>`;
const HOSTILE_TEXT = `hello <img src=x onerror=alert(1)> & "world"`;

/** Runs one turn on a fresh session of a daemon on `home`/`workspace`, closes it, and returns what its subscriber saw. */
async function recordClosedSession(home: string, workspace: string): Promise<{ sessionId: string; seen: SseFrame[] }> {
  await using d = await fakeAgentDaemon([], { workspace, env: { SVC_HOME: home } });
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  // From the first event on (the agent may publish some before a stream could open).
  await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
  expect((await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: HOSTILE_NAME })).status).toBe(200);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@say ${HOSTILE_TEXT}` }] });
  expect(prompt.status).toBe(202);
  await events.waitFor("turn_complete");
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  await events.waitForEnd();
  return { sessionId, seen: events.frames.filter((f) => f.id !== undefined) };
}

describe("history of a closed session", () => {
  test("after a restart: listed, transcript pages hold every event its subscriber saw, export in every format; no agent starts", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId, seen } = await recordClosedSession(home.path, ws.path);
    expect(seen.at(-1)?.event).toBe("session_closed");

    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path } });
    const wsId = workspaceId(ws.path);

    const list = await d.json("GET", `/workspace/${wsId}/sessions`);
    expect(list.status).toBe(200);
    expect(list.body.sessions).toEqual([expect.objectContaining({ sessionId, live: false, persistedState: "closed", displayName: HOSTILE_NAME, isArchived: false })]);

    // Paging: two records a page, cursors chained to the end.
    const events: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100);
      const page = await d.json("GET", `/session/${sessionId}/transcript?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ v: 1, sessionId });
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      events.push(...page.body.events);
      if (!page.body.hasMore) {
        expect(page.body.nextCursor).toBeUndefined();
        break;
      }
      cursor = page.body.nextCursor;
    }
    expect(events).toEqual(seen.map((f) => f.envelope));
    const whole = await d.json("GET", `/session/${sessionId}/transcript`);
    expect(whole.body.events).toEqual(events);
    expect(whole.body.hasMore).toBe(false);

    // The workspace-qualified forms, by workspace id and by path; another workspace does not own it.
    for (const selector of [wsId, encodeURIComponent(ws.path)]) {
      expect((await d.json("GET", `/workspaces/${selector}/session/${sessionId}/transcript`)).body.events).toEqual(events);
      expect((await d.fetch(`/workspaces/${selector}/session/${sessionId}/export?format=jsonl`)).status).toBe(200);
    }
    expect((await d.json("GET", `/workspaces/0123456789abcdef/session/${sessionId}/transcript`)).status).toBe(404);
    expect((await d.fetch(`/workspaces/0123456789abcdef/session/${sessionId}/export`)).status).toBe(404);

    // html (the default): an attachment, a strict CSP, every piece of session text escaped.
    const html = await d.fetch(`/session/${sessionId}/export`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toStartWith("text/html");
    expect(html.headers.get("content-disposition")).toMatch(/^attachment; filename="svc-export-[0-9T-]+Z\.html"$/);
    expect(html.headers.get("cache-control")).toBe("no-store");
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(html.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await html.text();
    expect(page).toStartWith("<!doctype html>");
    expect(page).not.toContain("<script");
    expect(page).not.toContain("<img");
    expect(page).toContain("&#60;img src=x onerror=alert(1)&#62; &#38; &#34;world&#34;");
    expect(page).toContain("&#60;script&#62;");
    expect(page).not.toMatch(/<link|src=["']?http|@import/);

    const md = await d.fetch(`/session/${sessionId}/export?format=md`);
    expect(md.headers.get("content-type")).toStartWith("text/markdown");
    expect(md.headers.get("content-disposition")).toEndWith('.md"');
    expect(await md.text()).toContain(HOSTILE_TEXT);

    const json = await d.fetch(`/session/${sessionId}/export?format=json`);
    expect(json.headers.get("content-type")).toStartWith("application/json");
    expect(await json.json()).toMatchObject({ v: 1, sessionId, workspaceCwd: ws.path, displayName: HOSTILE_NAME, events });

    const jsonl = await d.fetch(`/session/${sessionId}/export?format=jsonl`);
    expect(jsonl.headers.get("content-type")).toStartWith("application/jsonl");
    const lines = (await jsonl.text()).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((l) => JSON.parse(l))).toEqual(events);
    // Exactly the bytes the stream carried.
    expect(lines).toEqual(seen.map((f) => f.raw.slice(f.raw.indexOf("\ndata: ") + 7)));

    // Reading history started no agent.
    expect(await d.agentPids()).toEqual([]);
  });

  test("bad paging, formats and ids answer 400/404 with their codes", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const { sessionId } = await recordClosedSession(home.path, ws.path);
    const other = await recordClosedSession(home.path, ws.path);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path } });

    for (const limit of ["0", "501", "abc", "-1", "1.5", ""]) {
      const reply = await d.json("GET", `/session/${sessionId}/transcript?limit=${limit}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: "invalid_transcript_limit", maxLimit: 500 });
    }
    const first = await d.json("GET", `/session/${other.sessionId}/transcript?limit=1`);
    for (const cursor of ["garbage!", "e30", first.body.nextCursor, "A".repeat(2000)]) {
      const reply = await d.json("GET", `/session/${sessionId}/transcript?cursor=${encodeURIComponent(cursor)}`);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe("invalid_transcript_cursor");
    }
    const format = await d.json("GET", `/session/${sessionId}/export?format=pdf`);
    expect(format.status).toBe(400);
    expect(format.body).toMatchObject({ code: "invalid_export_format", format: "pdf", allowedFormats: ["html", "md", "json", "jsonl"] });
    for (const path of ["/session/nope/transcript", "/session/nope/export"]) {
      const reply = await d.json("GET", path);
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ code: "session_not_found", sessionId: "nope" });
    }
    const size = await d.json("GET", `/workspace/${workspaceId(ws.path)}/sessions?size=0`);
    expect(size.status).toBe(400);
    const state = await d.json("GET", `/workspace/${workspaceId(ws.path)}/sessions?archiveState=gone`);
    expect(state.body.code).toBe("invalid_archive_state");
    expect(await d.agentPids()).toEqual([]);
  });
});
