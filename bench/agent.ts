/**
 * `bun bench/agent.ts [--binary <path>] [--runs <n>] [--qwen <cli.js> | --no-qwen]`: the built-in
 * agent's figures (issue 11), on the compiled binary (`<binary> --acp`, default dist/svc) and on
 * source (`bun src/main.ts --acp`), side by side with the reference agent (`qwen --acp` 0.24.4, run
 * by bun as the daemon runs an SVC_CLI_ENTRY; default: the copy `npm run test:interop` installs in
 * `.interop/`, installed first if missing), all against the same mock model: spawn → `initialize`
 * answered, idle RSS after one session and its turns, memory per extra session, model's last chunk
 * → `session/prompt` answered (the daemon's `turn_complete` follows that answer), and daemon cold
 * start → first `POST /session` answered with that agent as the child; then the daemon's own memory
 * per live reference-agent session (`agent-memory.ts`). Prints medians; timing never fails it.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startMockModel } from "../test/fixtures/mock-model.ts";
import { QWEN_CLI } from "../test/interop/install-qwen.ts";
import { formatAgentMemory, measureAgentMemory } from "./agent-memory.ts";
import { coldSessionMs, startAgent } from "./lib/acp-agent.ts";
import { cleanUp, scratchDir } from "./lib/procs.ts";

const ROOT = join(import.meta.dir, "..");
const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { binary: { type: "string", default: join(ROOT, "dist", "svc") }, runs: { type: "string", default: "10" }, qwen: { type: "string", default: QWEN_CLI }, "no-qwen": { type: "boolean", default: false } },
});
const RUNS = Number(values.runs);
/** Extra sessions opened for the per-session memory figure (fewer for the reference agent, whose sessions are slow to open). */
const EXTRA_SESSIONS = 200;
const EXTRA_QWEN_SESSIONS = 20;
/** The daemon-side memory per qwen session (`agent-memory.ts`): rounds, and sessions opened per round. */
const MEMORY_ROUNDS = 5;
const MEMORY_SESSIONS_PER_ROUND = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** One agent to measure: how to spawn it, and how to start a daemon that runs it as its child. */
interface Subject {
  readonly label: string;
  readonly agentCmd: string[];
  readonly daemonCmd: string[];
  /** Added to the environment of both (the reference agent's home dir, its entry for the daemon). */
  readonly env: () => Record<string, string>;
  readonly extraSessions: number;
}

async function measure({ label, agentCmd: cmd, daemonCmd, env: envOf, extraSessions }: Subject) {
  const model = startMockModel();
  const workspace = scratchDir("agent-bench-ws");
  const env = { OPENAI_API_KEY: "bench", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model", ...envOf() };
  const inits: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const a = await startAgent(cmd, workspace, env);
    inits.push(a.initMs);
    await a.stop();
  }
  const a = await startAgent(cmd, workspace, env);
  const { sessionId } = await a.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  const tails: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.chunks.length = 0;
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `turn ${i}` }] });
    const answered = performance.now();
    tails.push(answered - a.chunks.at(-1)!.at);
  }
  await Bun.sleep(1000);
  const idle = rssBytes(a.proc.pid);
  for (let i = 0; i < extraSessions; i++) await a.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  await Bun.sleep(1000);
  const perSession = (rssBytes(a.proc.pid) - idle) / extraSessions;
  await a.stop();
  const colds: number[] = [];
  for (let i = 0; i < RUNS; i++) colds.push(await coldSessionMs(daemonCmd, env));
  await model[Symbol.asyncDispose]();
  return { label, initMs: median(inits), idleRss: idle, perSessionBytes: perSession, lastChunkToAnswerMs: median(tails), coldSessionMs: median(colds) };
}

/** `npm run test:interop`'s install step: the reference agent into `.interop/`. */
async function installReference(): Promise<void> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "test", "interop", "install-agents.ts"), "qwen-code"], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error("installing the reference agent failed; pass --no-qwen to skip it");
}

try {
  const source = [process.execPath, join(ROOT, "src", "main.ts")];
  const subjects: Subject[] = [
    { label: "svc (binary)", agentCmd: [values.binary], daemonCmd: [values.binary], env: () => ({}), extraSessions: EXTRA_SESSIONS },
    { label: "svc (source)", agentCmd: source, daemonCmd: source, env: () => ({}), extraSessions: EXTRA_SESSIONS },
  ];
  if (!values["no-qwen"]) {
    if (!existsSync(values.qwen)) await installReference();
    // qwen keeps its settings and sessions under HOME: a scratch one, as the interop tests do.
    const home = scratchDir("agent-bench-qwen-home");
    subjects.push({ label: "qwen --acp 0.24.4 (reference)", agentCmd: [process.execPath, values.qwen], daemonCmd: [values.binary], env: () => ({ HOME: home, QWEN_HOME: home, SVC_CLI_ENTRY: values.qwen }), extraSessions: EXTRA_QWEN_SESSIONS });
  }
  const rows = [];
  for (const subject of subjects) rows.push(await measure(subject));
  console.log(`binary size: ${statSync(values.binary).size} bytes (${mib(statSync(values.binary).size)})`);
  console.log(`| agent | spawn → initialize (median) | daemon cold → first POST /session (median) | idle RSS (1 session, ${RUNS} turns) | memory per extra session | last chunk → prompt answered (median) |`);
  console.log("|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(`| ${r.label} | ${r.initMs.toFixed(1)} ms | ${r.coldSessionMs.toFixed(1)} ms | ${mib(r.idleRss)} | ${(r.perSessionBytes / 1024).toFixed(1)} KiB | ${r.lastChunkToAnswerMs.toFixed(2)} ms |`);
  // The daemon's side of each live reference-agent session (the table's memory column is the agent's).
  if (!values["no-qwen"]) console.log(formatAgentMemory(await measureAgentMemory(MEMORY_ROUNDS, MEMORY_SESSIONS_PER_ROUND)));
} finally {
  await cleanUp();
}
