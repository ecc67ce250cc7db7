/**
 * The built-in agent bounds what it sends over ACP and what it takes from the model (hostile review
 * finding 4, issue 22 deliverable 4), through the daemon and, under `test:binary`, the compiled
 * binary: 17 MB tool-call ids and names, a 5.9 million "€" plan entry, 17 MiB arguments and text, a
 * 200 MB streamed reply; and (review round 2) the model's raw HTTP response: an SSE line that never
 * ends, a 200 MB event, a 300 MB error body. Each turn ends as the bounds say (completed with
 * everything cut in bytes, or `turn_error` `output_too_large`, or the error's status), the agent is
 * never killed, its memory and saved conversation stay small, the next turn works, and another
 * session's turn still completes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PLAN_ENTRY_BYTES, TITLE_CAP_BYTES } from "../../src/builtin-agent/acp-bounds.ts";
import { MAX_ERROR_BODY_BYTES, MAX_ROUND_TEXT_BYTES, MAX_STREAM_EVENT_BYTES, MAX_TOOL_NAME_BYTES } from "../../src/builtin-agent/model/model-round.ts";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { pidAlive } from "../helpers/pids.ts";
import { openSse, type SseClient, type SseFrame } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TURN_MS = 60_000;
const HUGE = 17 * 1024 * 1024;

interface Session {
  readonly sessionId: string;
  events: SseClient;
  /** Every frame seen, across resubscriptions. */
  readonly seen: SseFrame[];
  /** Last event id seen, to resume from after the daemon evicts this slow reader. */
  lastId: number;
}

const subscribe = (url: string, sessionId: string, after: number) => openSse(`${url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": String(after) } });

async function openSession(url: string): Promise<Session> {
  const created = await jsonRequest(url, "POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  return { sessionId, events: await subscribe(url, sessionId, 0), seen: [], lastId: 0 };
}

/** Sends a prompt and returns its end frame, resubscribing where it left off when the daemon evicts the reader (megabytes of text). */
async function turn(url: string, session: Session, text: string): Promise<SseFrame> {
  const reply = await jsonRequest(url, "POST", `/session/${session.sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const promptId = reply.body.promptId as string;
  return await until(
    async () => {
      for (const f of session.events.frames) {
        if (f.id === undefined || f.id <= session.lastId) continue;
        session.lastId = f.id;
        session.seen.push(f);
      }
      const end = session.seen.find((f) => (f.event === "turn_complete" || f.event === "turn_error") && f.data.promptId === promptId);
      if (end) return end;
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

/** The built-in agent child serving `workspace` (a `--acp` process whose cwd it is). */
function agentPid(workspace: string): number | null {
  const real = realpathSync(workspace);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes("--acp") && readlinkSync(`/proc/${entry}/cwd`) === real) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

/** Peak resident memory of a process (Linux), in MiB. */
const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

interface Setup extends AsyncDisposable {
  readonly daemon: TestDaemon;
  readonly model: MockModel;
  readonly ws: TempDir;
  readonly home: TempDir;
  readonly a: Session;
  readonly b: Session;
}

async function setup(): Promise<Setup> {
  const model = startMockModel();
  const ws = tempDir("svc-agent-bounds-ws-");
  const home = tempDir("svc-agent-bounds-home-");
  // No automatic title: its model request would take a reply queued for the next turn.
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
  const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
  const daemon = await startDaemon(["--trust-workspace", "--approval-mode", "yolo"], { workspace: ws.path, env });
  const a = await openSession(daemon.url);
  const b = await openSession(daemon.url);
  return {
    daemon,
    model,
    ws,
    home,
    a,
    b,
    async [Symbol.asyncDispose]() {
      a.events.close();
      b.events.close();
      await daemon[Symbol.asyncDispose]();
      await model[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

const updatesOf = (s: Session) => s.seen.filter((f) => f.event === "session_update").map((f) => f.data.update);
const largestFrame = (s: Session) => Math.max(...s.seen.map((f) => Buffer.byteLength(f.raw)));

describe("built-in agent: bounded ACP output", () => {
  test("17 MiB arguments, a 17 MiB text delta and a 20 MiB write_file end their turns output_too_large; the agent and the other session go on", async () => {
    await using s = await setup();
    const { daemon, model, ws, a, b } = s;
    const pid = agentPid(ws.path);
    model.enqueue({ kind: "tools", calls: [{ name: "read_file", args: { file_path: "p".repeat(HUGE) } }] });
    expect((await turn(daemon.url, a, "huge path")).data).toMatchObject({ errorKind: "output_too_large" });

    model.enqueue({ kind: "text", text: "t".repeat(HUGE), chunkChars: HUGE });
    expect((await turn(daemon.url, a, "huge text")).data).toMatchObject({ errorKind: "output_too_large" });

    // The two refused turns before leave the history near the mock model's context window: the agent
    // first asks for a summary of it (the reply queued here), then sends the turn.
    model.enqueue({ kind: "text", text: "summary of the earlier turns" });
    model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "big.txt", content: "w".repeat(20 * 1024 * 1024) } }] });
    expect((await turn(daemon.url, a, "huge write")).data).toMatchObject({ errorKind: "output_too_large" });
    expect(existsSync(join(ws.path, "big.txt"))).toBe(false);
    // Nothing refused is re-sent to the model with every later round.
    expect((await turn(daemon.url, a, "please answer")).event).toBe("turn_complete");
    expect(JSON.stringify(model.requests.at(-1)).length).toBeLessThan(2 * MAX_ROUND_TEXT_BYTES);

    expect((await turn(daemon.url, b, "still there?")).event).toBe("turn_complete");
    expect(agentPid(ws.path)).toBe(pid);
  }, 180_000);

  test("a 200 MB reply, 17 MB tool-call ids and names, 5.9 million € in a plan: bounded in bytes, never a killed agent, small memory and conversation file", async () => {
    await using s = await setup();
    const { daemon, model, ws, home, a, b } = s;
    const pid = agentPid(ws.path)!;
    writeFileSync(join(ws.path, "f.txt"), "hello\n");

    model.enqueue({ kind: "flood", bytes: 200 * 1024 * 1024 });
    const flooded = await turn(daemon.url, a, "flood me");
    expect(flooded.data).toMatchObject({ errorKind: "output_too_large", message: expect.stringContaining(`${MAX_ROUND_TEXT_BYTES} bytes of text`) });
    expect(model.floodedBytes()).toBeLessThan(32 * 1024 * 1024);
    const peak = peakRssMiB(pid);
    console.error(`built-in agent peak RSS after a 200 MB reply: ${peak.toFixed(0)} MiB`);
    expect(peak).toBeLessThan(250);
    expect(statSync(join(home.path, "agent", "sessions", `${a.sessionId}.jsonl`)).size).toBeLessThan(MAX_ROUND_TEXT_BYTES + 64 * 1024);
    expect((await turn(daemon.url, a, "please answer")).event).toBe("turn_complete");

    model.enqueue(
      { kind: "tools", calls: [{ id: "i".repeat(HUGE), name: "read_file", args: { file_path: "f.txt" } }, { id: "call_short", name: "list_directory", args: { path: "." } }] },
      { kind: "text", text: "ok" },
    );
    expect((await turn(daemon.url, a, "huge ids")).event).toBe("turn_complete");
    const announced = updatesOf(a).filter((u) => u.sessionUpdate === "tool_call");
    expect(announced.map((u) => u.toolCallId)).toEqual([expect.stringMatching(/^call_[0-9a-f-]{36}$/), expect.stringMatching(/^call_[0-9a-f-]{36}$/)]);
    for (const u of announced) expect(Buffer.byteLength(u.title)).toBeLessThanOrEqual(TITLE_CAP_BYTES);
    // A 17 MB name names no tool: the round ends there.
    model.enqueue({ kind: "tools", calls: [{ id: "call_long_name", name: "n".repeat(HUGE), args: {} }] });
    expect((await turn(daemon.url, a, "huge name")).data).toMatchObject({ errorKind: "output_too_large", message: expect.stringContaining(`${MAX_TOOL_NAME_BYTES} bytes in a tool's name`) });
    // Neither 17 MB string reaches the saved conversation.
    expect(statSync(join(home.path, "agent", "sessions", `${a.sessionId}.jsonl`)).size).toBeLessThan(MAX_ROUND_TEXT_BYTES + 128 * 1024);

    model.enqueue({ kind: "tools", calls: [{ name: "todo_write", args: { todos: [{ content: "€".repeat(5_900_000) }] } }] });
    expect((await turn(daemon.url, a, "big plan")).data).toMatchObject({ errorKind: "output_too_large" });
    model.enqueue({ kind: "tools", calls: [{ name: "todo_write", args: { todos: [{ content: "€".repeat(1_900_000) }] } }] }, { kind: "text", text: "ok" });
    expect((await turn(daemon.url, a, "plan")).event).toBe("turn_complete");
    const plan = updatesOf(a).find((u) => u.sessionUpdate === "plan");
    expect(Buffer.byteLength(plan.entries[0].content)).toBeLessThanOrEqual(PLAN_ENTRY_BYTES);
    expect(largestFrame(a)).toBeLessThan(256 * 1024);
    console.error(`built-in agent peak RSS after 17 MB ids and a 17.7 MB plan too: ${peakRssMiB(pid).toFixed(0)} MiB`);

    expect((await turn(daemon.url, b, "still there?")).event).toBe("turn_complete");
    expect(agentPid(ws.path)).toBe(pid);
    expect(pidAlive(pid)).toBe(true);
    expect(a.seen.some((f) => f.event === "session_died")).toBe(false);
  }, 180_000);

  test("an SSE line that never ends (1.5 GB offered), a 200 MB event and a 300 MB error body end their turns at once with a clear turn_error; the agent stays small", async () => {
    await using s = await setup();
    const { daemon, model, ws, a, b } = s;
    const pid = agentPid(ws.path)!;
    const MB = 1024 * 1024;
    const started = performance.now();
    model.enqueue({ kind: "flood", bytes: 1536 * MB, as: "unterminated-line" });
    const line = await turn(daemon.url, a, "one endless line");
    expect(line.data).toMatchObject({ errorKind: "output_too_large", message: expect.stringContaining(`the limit of ${MAX_STREAM_EVENT_BYTES} bytes in one event of the response stream`) });
    // The bound ended it, not the 120 s stall timer ("nothing arrived").
    expect(performance.now() - started).toBeLessThan(30_000);

    model.enqueue({ kind: "flood", bytes: 200 * MB, as: "one-event" });
    expect((await turn(daemon.url, a, "one huge event")).data).toMatchObject({ errorKind: "output_too_large", message: expect.stringContaining(`${MAX_STREAM_EVENT_BYTES} bytes in one event`) });
    const streamed = model.floodedBytes();
    expect(streamed).toBeLessThan(2 * (MAX_STREAM_EVENT_BYTES + 16 * MB));

    model.enqueue({ kind: "status", status: 400, bodyBytes: 300 * MB });
    expect((await turn(daemon.url, a, "error body")).data.message).toStartWith("model openai/mock-model: HTTP 400: Bad Request; not retryable; the answer's body begins:");
    expect(model.floodedBytes() - streamed).toBeLessThan(MAX_ERROR_BODY_BYTES + 16 * MB);

    const peak = peakRssMiB(pid);
    console.error(`built-in agent peak RSS after an endless SSE line, a 200 MB event and a 300 MB error body: ${peak.toFixed(0)} MiB`);
    expect(peak).toBeLessThan(250);
    expect((await turn(daemon.url, a, "please answer")).event).toBe("turn_complete");
    expect((await turn(daemon.url, b, "still there?")).event).toBe("turn_complete");
    expect(agentPid(ws.path)).toBe(pid);
  }, 180_000);
});
