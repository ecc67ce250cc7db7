/**
 * The built-in agent bounds what it sends over ACP (hostile review finding 4): a 17 MiB tool
 * argument, a 17 MiB text delta and a 20 MiB write_file through the daemon each leave the agent
 * alive (the daemon drops the channel on a line over 16 MiB), that tool call fails clearly, and
 * another session's turn still completes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TURN_MS = 60_000;
const HUGE = 17 * 1024 * 1024;

interface Session {
  readonly sessionId: string;
  events: SseClient;
  /** Last event id seen, to resume from after the daemon evicts this slow reader. */
  lastId: number;
}

const subscribe = (url: string, sessionId: string, after: number) => openSse(`${url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": String(after) } });

async function openSession(url: string): Promise<Session> {
  const created = await jsonRequest(url, "POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  return { sessionId, events: await subscribe(url, sessionId, 0), lastId: 0 };
}

/** Sends a prompt and waits for its end frame, resubscribing where it left off when the daemon evicts the reader (megabytes of text). */
async function turn(url: string, session: Session, text: string): Promise<string> {
  const reply = await jsonRequest(url, "POST", `/session/${session.sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const promptId = reply.body.promptId as string;
  return await until(
    async () => {
      for (const f of session.events.frames) {
        if (f.id !== undefined) session.lastId = Math.max(session.lastId, f.id);
        if ((f.event === "turn_complete" || f.event === "turn_error") && f.data.promptId === promptId) return f.event;
      }
      if (session.events.ended || session.events.frames.some((f) => f.event === "client_evicted")) {
        session.events.close();
        session.events = await subscribe(url, session.sessionId, session.lastId);
      }
      return null;
    },
    TURN_MS,
    "the turn's end",
  );
}

describe("built-in agent: bounded ACP output", () => {
  test("a 17 MiB read_file path, a 17 MiB text delta and a 20 MiB write_file leave the agent and the other session working", async () => {
    await using model = startMockModel();
    await using ws = tempDir("svc-agent-bounds-ws-");
    await using home = tempDir("svc-agent-bounds-home-");
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify({ tools: { approvalMode: "yolo" } }));
    const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
    await using daemon = await startDaemon([], { workspace: ws.path, env });
    const a = await openSession(daemon.url);
    const b = await openSession(daemon.url);
    try {
      // Each passes a round's bound (`model-round.ts`): the turn fails, the agent lives.
      model.enqueue({ kind: "tools", calls: [{ name: "read_file", args: { file_path: "p".repeat(HUGE) } }] });
      expect(await turn(daemon.url, a, "huge path")).toBe("turn_error");

      model.enqueue({ kind: "text", text: "t".repeat(HUGE), chunkChars: HUGE });
      expect(await turn(daemon.url, a, "huge text")).toBe("turn_error");

      model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "big.txt", content: "w".repeat(20 * 1024 * 1024) } }] });
      expect(await turn(daemon.url, a, "huge write")).toBe("turn_error");
      expect(existsSync(join(ws.path, "big.txt"))).toBe(false);
      // The refused arguments are not re-sent to the model with every later round.
      expect(JSON.stringify(model.requests.at(-1)).length).toBeLessThan(HUGE + 1024 * 1024);

      expect(await turn(daemon.url, b, "still there?")).toBe("turn_complete");
    } finally {
      a.events.close();
      b.events.close();
    }
  }, 180_000);
});
