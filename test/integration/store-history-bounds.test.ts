/**
 * History reads and deletes stay bounded by bytes, not only by counts: a transcript page of large
 * events ends early, and deleting sessions gives the disk space of their journal back while the
 * daemon runs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { MAX_TRANSCRIPT_PAGE_BYTES } from "../../src/sessions/session-history.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

/** A prompt whose text and the agent's echo of it are each 3/4 of a transcript page's byte budget. */
const LARGE = `@say ${"x".repeat((MAX_TRANSCRIPT_PAGE_BYTES * 3) / 4)}`;

/** Runs `text` on a new session and closes it; returns its id. */
async function closedSession(d: FakeAgentDaemon, text: string): Promise<string> {
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  await using events = await d.events(sessionId);
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  expect(prompt.status).toBe(202);
  await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 20_000);
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  return sessionId;
}

const walBytes = (home: string) => {
  const path = join(home, "svc.db-wal");
  return existsSync(path) ? statSync(path).size : 0;
};

describe("history bounds", () => {
  test("a transcript page stops at its byte budget (one record at least); pages chain to the whole journal", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const sessionId = await closedSession(d, LARGE);

    const events: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      expect(pages++).toBeLessThan(100);
      const page = await d.json("GET", `/session/${sessionId}/transcript?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      const carried = page.body.events.reduce((n: number, e: unknown) => n + JSON.stringify(e).length, 0);
      expect(page.body.events.length).toBeGreaterThan(0);
      if (page.body.events.length > 1) expect(carried).toBeLessThanOrEqual(MAX_TRANSCRIPT_PAGE_BYTES);
      events.push(...page.body.events);
      if (!page.body.hasMore) {
        expect(page.body.nextCursor).toBeUndefined();
        break;
      }
      expect(typeof page.body.nextCursor).toBe("string");
      cursor = page.body.nextCursor;
    }
    // The two large events (the prompt and its echo) cannot share a page.
    expect(pages).toBeGreaterThanOrEqual(2);
    const jsonl = await (await d.fetch(`/session/${sessionId}/export?format=jsonl`)).text();
    expect(events).toEqual(jsonl.trimEnd().split("\n").map((line) => JSON.parse(line)));
  }, 60_000);

  test("deleting sessions gives the write-ahead log's disk space back while the daemon runs", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const sessionId = await closedSession(d, LARGE);
    // The session's events went through the log.
    expect(walBytes(home.path)).toBeGreaterThan(1024 * 1024);

    const deleted = await d.json("POST", "/sessions/delete", { sessionIds: [sessionId] });
    expect(deleted.body.results).toEqual([{ sessionId, outcome: "deleted" }]);
    expect(walBytes(home.path)).toBeLessThan(256 * 1024);
    expect((await d.json("GET", "/health")).status).toBe(200);
  }, 60_000);
});
