/**
 * The daemon's own memory per live session with the reference agent (issue 15: target ≤ 250 KB;
 * about 850 KB before `_meta.availableSkillDetails` was dropped from `available_commands_update`).
 * The daemon (sources, `--agent qwen-code` pointed at the `.interop/` install through settings
 * `agents.qwen-code.path`) runs in `agent-memory-host.ts`, whose SIGUSR2 does a full GC and reports
 * RSS and the live JS heap. One qwen child, against the mock model; after WARM_CYCLES create +
 * close cycles (so JIT code and caches the create path fills once are not counted), each of ROUNDS
 * rounds opens SESSIONS_PER_ROUND more `sessionScope: thread` sessions, all kept live, and divides
 * the growth after GC by their number. Prints the median of the rounds.
 *
 * `bun bench/agent-memory.ts [--rounds n] [--sessions n]`; `bench/agent.ts` runs it after its table.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startMockModel } from "../test/fixtures/mock-model.ts";
import { interopEntry } from "../test/interop/install-agents.ts";
import { cleanUp, scratchDir, spawnTracked, stopProcess } from "./lib/procs.ts";
import { median } from "./lib/stats.ts";

/** Create + close cycles before the first reading. */
const WARM_CYCLES = 10;
/** How long one host report or one qwen `session/new` through the daemon may take. */
const STEP_MS = 60_000;

export interface AgentMemoryResult {
  readonly rounds: number;
  readonly sessionsPerRound: number;
  /** Median growth per live session after GC: the JS heap, and RSS. */
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
}

interface Reading {
  readonly rssBytes: number;
  readonly heapBytes: number;
}

/** The host's stdout, one JSON line at a time. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async function next(): Promise<Record<string, number | string>> {
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return JSON.parse(line);
      }
      const read = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
      if (read === null) throw new Error(`the memory host said nothing within ${STEP_MS} ms`);
      if (read.done) throw new Error("the memory host exited");
      buffered += decoder.decode(read.value, { stream: true });
    }
  };
}

export async function measureAgentMemory(rounds: number, sessionsPerRound: number): Promise<AgentMemoryResult> {
  const entry = interopEntry("qwen-code");
  if (!existsSync(entry)) throw new Error(`the reference agent is not installed at ${entry}: run \`bun test/interop/install-agents.ts qwen-code\``);
  const model = startMockModel();
  const workspace = scratchDir("agent-memory-ws");
  const home = scratchDir("agent-memory-home");
  const svcHome = join(home, ".svc");
  mkdirSync(svcHome);
  writeFileSync(join(svcHome, "settings.json"), JSON.stringify({ agents: { "qwen-code": { path: entry } } }));
  const host = spawnTracked(
    [process.execPath, join(import.meta.dir, "agent-memory-host.ts"), "--port", "0", "--workspace", workspace, "--agent", "qwen-code", "--max-sessions", "0", "--max-total-sessions", "0", "--log-level", "warn"],
    {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? "", HOME: home, SVC_HOME: svcHome, QWEN_HOME: join(home, ".qwen"), OPENAI_API_KEY: "bench", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  try {
    const next = lineReader(host.stdout);
    const { url } = (await next()) as { url: string };
    const read = async (): Promise<Reading> => {
      host.kill("SIGUSR2");
      return (await next()) as unknown as Reading;
    };
    const create = async (): Promise<string> => {
      const reply = await fetch(`${url}/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sessionScope: "thread" }), signal: AbortSignal.timeout(STEP_MS) });
      if (reply.status !== 200) throw new Error(`POST /session answered ${reply.status}: ${await reply.text()}`);
      return ((await reply.json()) as { sessionId: string }).sessionId;
    };
    for (let i = 0; i < WARM_CYCLES; i++) {
      const id = await create();
      const closed = await fetch(`${url}/session/${id}`, { method: "DELETE" });
      if (closed.status !== 204) throw new Error(`DELETE /session answered ${closed.status}`);
    }
    const heap: number[] = [];
    const rss: number[] = [];
    let before = await read();
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < sessionsPerRound; i++) await create();
      const after = await read();
      heap.push((after.heapBytes - before.heapBytes) / sessionsPerRound);
      rss.push((after.rssBytes - before.rssBytes) / sessionsPerRound);
      before = after;
    }
    return { rounds, sessionsPerRound, heapBytesPerSession: median(heap), rssBytesPerSession: median(rss) };
  } finally {
    await stopProcess(host);
    await model[Symbol.asyncDispose]();
  }
}

export const formatAgentMemory = (r: AgentMemoryResult) =>
  `daemon memory per live qwen session (after GC, median of ${r.rounds} rounds × ${r.sessionsPerRound} sessions): JS heap ${(r.heapBytesPerSession / 1024).toFixed(1)} KiB, RSS ${(r.rssBytesPerSession / 1024).toFixed(1)} KiB (target ≤ 250 KB)`;

if (import.meta.main) {
  const { values } = parseArgs({ args: Bun.argv.slice(2), options: { rounds: { type: "string", default: "5" }, sessions: { type: "string", default: "10" } } });
  try {
    console.log(formatAgentMemory(await measureAgentMemory(Number(values.rounds), Number(values.sessions))));
  } finally {
    await cleanUp();
  }
}
