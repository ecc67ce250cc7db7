/**
 * History reads and deletes stay bounded by bytes, not only by counts: a transcript page of large
 * events ends early, and deleting sessions gives the disk space of their journal back while the
 * daemon runs.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import { MAX_CONCURRENT_EXPORTS } from "../../src/server/routes/history.ts";
import { MAX_TRANSCRIPT_PAGE_BYTES } from "../../src/sessions/session-history.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { closedSession } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** A prompt whose text and the agent's echo of it are each 3/4 of a transcript page's byte budget. */
const LARGE = `@say ${"x".repeat((MAX_TRANSCRIPT_PAGE_BYTES * 3) / 4)}`;
/** As large, but text that does not compress (the journal compresses its chunks: src/store/journal-chunk.ts). */
const LARGE_DENSE = `@say ${randomBytes((MAX_TRANSCRIPT_PAGE_BYTES * 9) / 16).toString("base64")}`;

/**
 * A download over a raw socket that stops reading once the response head has come, so TCP
 * backpressure reaches the daemon (`fetch` would read on into its own buffer); `finish` reads the
 * rest until the daemon closes (`Connection: close`) and returns every byte.
 */
async function stalledDownload(port: number, path: string) {
  const chunks: Buffer[] = [];
  let received = 0;
  let closed = false;
  let reading = false;
  const head = () => Buffer.concat(chunks).toString("latin1", 0, Math.min(received, 4096));
  const socket: Socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open: (s) => void s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`),
      data(s, chunk) {
        chunks.push(Buffer.from(chunk));
        received += chunk.length;
        if (!reading && head().includes("\r\n\r\n")) s.pause();
      },
      close: () => void (closed = true),
      error: () => void (closed = true),
    },
  });
  await until(() => closed || head().includes("\r\n\r\n"), 10_000, "the response head");
  return {
    status: Number(/^HTTP\/1\.1 (\d+)/.exec(head())?.[1]),
    head: head(),
    async finish(): Promise<string> {
      reading = true;
      socket.resume();
      await until(() => closed, 30_000, "the download to end");
      return Buffer.concat(chunks).toString("utf8");
    },
    [Symbol.dispose]: () => socket.terminate(),
  };
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
    const sessionId = await closedSession(d, LARGE_DENSE);
    // The session's events went through the log.
    expect(walBytes(home.path)).toBeGreaterThan(1024 * 1024);

    const deleted = await d.json("POST", "/sessions/delete", { sessionIds: [sessionId] });
    expect(deleted.body.results).toEqual([{ sessionId, outcome: "deleted" }]);
    // Compaction runs in steps after the reply; its last one truncates the log.
    await until(() => walBytes(home.path) < 256 * 1024, 20_000, "the log cut back");
    expect((await d.json("GET", "/health")).status).toBe(200);
  }, 60_000);

  test("exports stream: /health answers while they are unread, one past the cap is 429 with Retry-After, slots come back", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    // Markup to escape: the HTML export of this session is about three times its journal (~20 MB).
    const markup = "<b>x</b>".repeat((MAX_TRANSCRIPT_PAGE_BYTES * 3) / 4 / 8);
    const sessionId = await closedSession(d, `@say ${markup}`);
    const path = `/session/${sessionId}/export?format=html`;

    // Exports up to the cap start and stall: the client reads nothing past their heads.
    const stalled = [];
    for (let i = 0; i < MAX_CONCURRENT_EXPORTS; i++) stalled.push(await stalledDownload(d.port, path));
    for (const s of stalled) expect(s.status).toBe(200);
    expect((await d.json("GET", "/health")).status).toBe(200);
    const refused = await d.fetch(path);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "too_many_exports", maxConcurrentExports: MAX_CONCURRENT_EXPORTS });

    // Read to the end, every export is whole, and its slot is free again.
    for (const s of stalled) {
      const raw = await s.finish();
      expect(raw).toContain("&#60;b&#62;x&#60;/b&#62;");
      expect(raw).not.toContain("<b>");
      expect(raw).toContain("</main></body></html>");
      s[Symbol.dispose]();
    }
    const whole = await d.fetch(path);
    expect(whole.status).toBe(200);
    const page = await whole.text();
    expect(page.split("&#60;b&#62;x&#60;/b&#62;").length - 1).toBe(2 * (markup.length / 8));
    expect(page).toEndWith("</main></body></html>\n");

    // A client that goes away mid-export gives its slot back too.
    for (let i = 0; i < MAX_CONCURRENT_EXPORTS; i++) (await stalledDownload(d.port, path))[Symbol.dispose]();
    const free = async () => {
      const res = await d.fetch(path);
      await res.body?.cancel();
      return res.status === 200;
    };
    await until(free, 10_000, "the slots of abandoned exports to be released");
    // HEAD renders nothing and holds no slot.
    for (let i = 0; i <= MAX_CONCURRENT_EXPORTS; i++) expect((await d.fetch(path, { method: "HEAD" })).status).toBe(200);
    await until(free, 10_000, "a slot after HEAD requests");
  }, 60_000);
});
