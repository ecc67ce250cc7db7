/**
 * Journal growth through the daemon (spec Limits): a session longer than the 8 MiB baseline loads
 * whole while the `--memory-budget-mb` pool has room, and every later load does too (the pool is
 * handed back once each reply is sent); pinning `--max-journal-bytes`, even to the baseline's own
 * value, gives the baseline and a truncation marker.
 */
import { describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const MiB = 1024 * 1024;
const PROMPTS = 2;
const SAYS = 3;
/** Big events in the journal: each prompt's echo (6 MiB) and its SAYS agent messages (2 MiB each). */
const BIG_EVENTS = PROMPTS * (1 + SAYS);

/** A session whose journal holds BIG_EVENTS events of 2 to 6 MiB (24 MiB, three times the 8 MiB baseline). */
async function bigSession(d: FakeAgentDaemon): Promise<string> {
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  for (let p = 0; p < PROMPTS; p++) {
    const text = Array.from({ length: SAYS }, (_, i) => `@say ${String(i).repeat(2 * MiB)}`).join("\n");
    const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
    expect(prompt.status).toBe(202);
    // Big frames would overflow an SSE subscriber's byte budget: the journal says when the turn is done.
    // The transcript comes in pages bounded in bytes too (a big event or two each): read them all.
    await until(async () => {
      let ended = 0;
      for (let cursor = ""; ; ) {
        const page = await d.json("GET", `/session/${sessionId}/transcript?limit=500${cursor}`);
        ended += (page.body.events as { type: string }[]).filter((e) => e.type === "turn_complete").length;
        if (!page.body.hasMore) return ended > p;
        cursor = `&cursor=${page.body.nextCursor}`;
      }
    }, 30_000, `turn ${p + 1} in the journal`);
  }
  return sessionId;
}

/** How many big events a load's replay holds, and its truncation marker's data (null without one). */
async function load(d: FakeAgentDaemon, sessionId: string) {
  const reply = await d.json("POST", `/session/${sessionId}/load`, {});
  expect(reply.status).toBe(200);
  const replay = reply.body.compactedReplay as { type: string; data: Record<string, any> }[];
  const big = replay.filter((e) => e.type === "session_update" && JSON.stringify(e.data).length > MiB);
  return { big: big.length, truncated: replay[0]?.type === "history_truncated" ? replay[0].data : null };
}

describe("journal growth on load", () => {
  test("unpinned: a session past the baseline loads whole, again and again (each reply hands its share back)", async () => {
    await using home = tempDir("svc-home-");
    // 20 MiB of pool: one whole load holds about 16 MiB of it until its reply is sent.
    await using d = await fakeAgentDaemon(["--memory-budget-mb", "20"], { env: { SVC_HOME: home.path } });
    const sessionId = await bigSession(d);
    for (let i = 0; i < 3; i++) expect(await load(d, sessionId)).toEqual({ big: BIG_EVENTS, truncated: null });
  }, 60_000);

  test("pinned: --max-journal-bytes at the baseline's own value disables growth", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon(["--memory-budget-mb", "20", "--max-journal-bytes", String(8 * MiB)], { env: { SVC_HOME: home.path } });
    const sessionId = await bigSession(d);
    const { big, truncated } = await load(d, sessionId);
    // The newest that fit in 8 MiB: the last prompt's three answers.
    expect(big).toBe(SAYS);
    expect(truncated).toMatchObject({ reason: "replay_window_exceeded", maxBytes: 8 * MiB, maxEvents: 10_000 });
  }, 60_000);
});
