/**
 * Interop, persistence: the real reference agent (`qwen --acp`) behind a real `svc serve` process.
 * A turn streams, the daemon is killed with SIGKILL mid-stream, a new daemon on the same data dir
 * lists the session, and `load` restores it through qwen's `session/load` with a replay holding
 * every event the subscriber saw. Run with `npm run test:interop`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { spawnDaemon } from "../helpers/daemon.ts";
import { openSse, type SseFrame } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { QWEN_CLI } from "./install-qwen.ts";

const TURN_MS = 90_000;

let mock: MockModel;
let ws: TempDir;
let home: TempDir;
let qwenHome: TempDir;

beforeAll(() => {
  if (!existsSync(QWEN_CLI)) throw new Error("run `bun test/interop/install-agents.ts qwen-code` first (npm run test:interop does)");
  mock = startMockModel();
  ws = tempDir("svc-interop-ws-");
  home = tempDir("svc-interop-home-");
  qwenHome = tempDir("svc-interop-qwen-");
});

afterAll(async () => {
  await mock?.[Symbol.asyncDispose]();
  for (const dir of [qwenHome, home, ws]) await dir?.[Symbol.asyncDispose]();
});

const start = () =>
  spawnDaemon(["--port", "0", "--workspace", ws.path, "--initialize-timeout-ms", "60000", "--log-level", "debug"], {
    cwd: ws.path,
    timeoutMs: 30_000,
    env: {
      SVC_HOME: home.path,
      SVC_CLI_ENTRY: QWEN_CLI,
      OPENAI_API_KEY: "dummy-key",
      OPENAI_BASE_URL: mock.baseUrl,
      OPENAI_MODEL: "mock-model",
      QWEN_HOME: qwenHome.path,
      HOME: qwenHome.path,
    },
  });

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("the reference agent's sessions survive a daemon SIGKILL", () => {
  test("kill -9 mid-stream, restart: listed, and load replays the last event a subscriber saw", async () => {
    let sessionId: string;
    let seen: SseFrame[];
    let firstEpoch: string;
    {
      await using daemon = await start();
      const created = (await (await post(`${daemon.url}/session`, {})).json()) as { sessionId: string };
      sessionId = created.sessionId;
      const sse = await openSse(`${daemon.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
      firstEpoch = sse.headers.get("x-svc-event-epoch")!;
      // A long streamed answer: 400 chunks, 10 ms apart.
      mock.enqueue({ kind: "text", text: "streamed ".repeat(400), chunkChars: 9, chunkDelayMs: 10 });
      expect((await post(`${daemon.url}/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "stream a long answer" }] })).status).toBe(202);
      await until(() => sse.frames.filter((f) => f.data?.update?.sessionUpdate === "agent_message_chunk").length >= 20, TURN_MS, "20 streamed chunks");
      daemon.proc.kill("SIGKILL");
      await daemon.proc.exited;
      await until(() => sse.ended, 10_000, "the stream to end");
      await Promise.resolve(sse[Symbol.asyncDispose]()).catch(() => {});
      seen = sse.frames.filter((f) => f.id !== undefined);
      expect(seen.some((f) => f.event === "turn_complete")).toBe(false);
    }

    await using daemon = await start();
    const list = (await (await daemon.fetch(`/workspace/${encodeURIComponent(ws.path)}/sessions`)).json()) as { sessions: { sessionId: string; live: boolean }[] };
    expect(list.sessions).toContainEqual(expect.objectContaining({ sessionId, live: false }));
    const load = await post(`${daemon.url}/session/${sessionId}/load`, {});
    const body = (await load.json()) as { restoredBy: string; compactedReplay: unknown[]; attached: boolean };
    expect(load.status).toBe(200);
    expect(body).toMatchObject({ attached: false, restoredBy: "session/load" });
    // Replayed items carry the epoch they were published in.
    for (const frame of seen) expect(body.compactedReplay).toContainEqual({ ...frame.envelope, _meta: { ...(frame.envelope as any)._meta, eventEpoch: firstEpoch } });

    // The restored session takes a new turn.
    await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
    const admitted = (await (await post(`${daemon.url}/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "hello again" }] })).json()) as { promptId: string };
    const done = await sse.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.promptId, TURN_MS);
    expect(done.data.stopReason).toBe("end_turn");
  }, TURN_MS * 2);
});
