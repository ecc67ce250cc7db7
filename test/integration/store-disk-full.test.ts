/**
 * A data dir on a disk that fills up (a 2 MB tmpfs) while a session streams. Recording stops, the
 * live session goes on, and nothing a client is shown goes missing silently: every event an SSE
 * client received is in the transcript, or comes after the `session_recording_degraded` notice,
 * which names the first id the journal lacks and counts the events published unrecorded when it
 * was told (they follow it at once).
 */
import { describe, expect } from "bun:test";
import { randomBytes } from "node:crypto";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { mountTest, tmpfs } from "../helpers/mounts.ts";
import type { SseFrame } from "../helpers/sse-client.ts";

/** Text zstd cannot shrink much: the disk fills in a few turns. */
const noise = (bytes: number) => randomBytes(bytes).toString("base64");

/** The whole transcript, every page. */
async function transcript(d: Awaited<ReturnType<typeof fakeAgentDaemon>>, sessionId: string): Promise<{ id: number; type: string; [field: string]: unknown }[]> {
  const events: { id: number; type: string; [field: string]: unknown }[] = [];
  for (let cursor: string | undefined, more = true; more; ) {
    const page = await d.json("GET", `/session/${sessionId}/transcript?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(page.status).toBe(200);
    events.push(...page.body.events);
    [cursor, more] = [page.body.nextCursor, page.body.hasMore];
  }
  return events;
}

describe("a data dir that fills up", () => {
  mountTest(
    "every event a client received is journaled or behind the notice that names the first unrecorded id; the notice's count is right",
    async () => {
      await using disk = tmpfs(2 * 1024 * 1024);
      await using d = await fakeAgentDaemon([], { env: { SVC_HOME: disk.path } });
      const { sessionId } = await d.createSession({ sessionScope: "thread" });
      await using events = await d.events(sessionId, { "Last-Event-ID": "0" });

      // Turns of ten 24 KB chunks each, until recording stops (a full disk), then one turn more.
      const turn = async () => {
        const text = Array.from({ length: 10 }, () => `@say ${noise(18 * 1024)}`).join("\n");
        const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
        expect(prompt.status).toBe(202);
        await events.first("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 20_000);
      };
      for (let n = 0; !events.frames.some((f) => f.event === "session_recording_degraded"); n++) {
        expect(n).toBeLessThan(40);
        await turn();
      }
      await turn();

      const received = events.frames.filter((f): f is SseFrame & { id: number } => f.id !== undefined);
      // Ids go up one at a time, with no hole.
      expect(received.map((f) => f.id)).toEqual(received.map((_, i) => i + 1));
      const notices = received.filter((f) => f.event === "session_recording_degraded");
      expect(notices.length).toBe(1);
      const notice = notices[0]!;
      expect(notice.data).toMatchObject({ sessionId, reason: "write_failed", transient: false, firstUnrecordedEventId: notice.id + 1 });
      const unrecorded = notice.data.unrecordedEvents as number;
      expect(unrecorded).toBeGreaterThan(0);

      const journal = await transcript(d, sessionId);
      const journaled = new Map<number, unknown>(journal.map((e) => [e.id, e]));
      // Everything before the notice is journaled, exactly as it was received.
      for (const frame of received.filter((f) => f.id < notice.id)) expect({ id: frame.id, journaled: journaled.get(frame.id) ?? null }).toEqual({ id: frame.id, journaled: frame.envelope });
      // The events it counts follow it at once, and the journal has none of them (nor anything after the notice).
      const counted = received.filter((f) => f.id > notice.id && f.id <= notice.id + unrecorded);
      expect(counted.length).toBe(unrecorded);
      expect(journal.filter((e) => e.id > notice.id)).toEqual([]);
      // The notice itself is journaled when the disk still takes its small row (the failed batch's log space usually does), marking where recording stopped.
      if (journaled.has(notice.id)) expect(journaled.get(notice.id)).toEqual(notice.envelope);

      const issues = (await d.json("GET", "/daemon/status")).body.issues as { code: string }[];
      expect(issues.map((i) => i.code)).toContain("recording_degraded");
      expect(issues.map((i) => i.code)).not.toContain("store_unavailable");
    },
    120_000,
  );
});
