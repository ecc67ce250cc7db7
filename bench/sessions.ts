/**
 * Sessions (issue 3), on the compiled binary with the fake ACP agent as its child, so the figures
 * are the daemon's own plus a known agent:
 * - first `POST /session` on a fresh daemon (child spawn, `initialize`, `session/new` included), with
 *   the agent as TypeScript and pre-bundled; next to it the same agent started alone by a tiny
 *   direct client (`lib/direct-agent.ts`), so `POST − agent alone` is the daemon's share, and the
 *   daemon's CPU time during the request (robust to other load);
 * - `sessionScope: thread` creates on a warm child: p50/p95/p99 and daemon CPU per create;
 * - RSS of the daemon and its agent child after 1, 20 and 100 live sessions, and the daemon's
 *   growth per extra session. The daemon offers no way to force a GC from outside, so each reading
 *   follows a settle period, and the session-create path is warmed first (20 create + close cycles)
 *   so JIT code for it is not counted as per-session memory.
 */
import { cpuSeconds } from "./lib/cpu.ts";
import { daemonStatus, startAgentDaemon, stopAgentDaemon, type AgentDaemon } from "./lib/agent-daemon.ts";
import { timeAgentStart, type AgentRuntime, type AgentStartTiming } from "./lib/direct-agent.ts";
import { KeepAliveClient } from "./lib/keep-alive-client.ts";
import { scratchDir } from "./lib/procs.ts";
import { residentMemory } from "./lib/rss.ts";
import { median, percentile } from "./lib/stats.ts";
import { fmt, table } from "./lib/table.ts";

export const SESSIONS_SETTINGS = {
  full: { firstRuns: 9, creates: 200, createWarmup: 20, rssDaemons: 3, settleMs: 1000 },
  quick: { firstRuns: 3, creates: 50, createWarmup: 10, rssDaemons: 1, settleMs: 300 },
};

/** Live-session counts at which RSS is read. */
const RSS_POINTS = [1, 20, 100] as const;
/** Create + close cycles before the first RSS reading. */
const RSS_WARM_CYCLES = 20;

export interface AgentChoice {
  readonly name: string;
  readonly entry: string;
}

export interface FirstSessionRow {
  readonly agent: string;
  readonly runs: number;
  /** First `POST /session`, send → last byte of the answer. */
  readonly medianMs: number;
  readonly p90Ms: number;
  /** Daemon CPU time spent during that request (median). */
  readonly daemonCpuMs: number | null;
  /** CPU the agent child had used by then: its whole start-up (median). */
  readonly agentCpuMs: number | null;
  /** The same agent started alone (medians). */
  readonly alone: AgentStartTiming;
  /** median POST − median agent alone (spawn → session/new answered). */
  readonly daemonShareMs: number;
}

export interface ThreadCreateResult {
  readonly runs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly daemonCpuUsPerCreate: number | null;
}

export interface SessionRssRow {
  readonly sessions: number;
  /** Medians over daemons, MB (10^6 bytes). */
  readonly daemonMb: number;
  readonly agentMb: number;
  readonly treeMb: number;
  /** The daemon's JS heap in use (finer grained than RSS, but counts garbage not yet collected). */
  readonly daemonHeapMb: number;
}

export interface SessionsResult {
  readonly agentRuntime: string;
  readonly firstSession: readonly FirstSessionRow[];
  readonly threadCreate: ThreadCreateResult;
  readonly rss: {
    readonly daemons: number;
    readonly settleMs: number;
    readonly rows: readonly SessionRssRow[];
    /** (daemon RSS@100 − RSS@1) / 99, KB (10^3 bytes), median over daemons. */
    readonly daemonKbPerSession: number;
    readonly agentKbPerSession: number;
    readonly daemonHeapKbPerSession: number;
  };
}

export interface SessionsOptions {
  /** How to run svc (the compiled binary) and how its agent children run (the binary as bun). */
  readonly svc: readonly string[];
  readonly agentRuntime: AgentRuntime;
  /** The TypeScript agent first, the pre-bundled one second (the one the later parts use). */
  readonly agents: readonly [AgentChoice, AgentChoice];
  readonly quick: boolean;
  readonly progress: (text: string) => void;
}

const cpuMs = (pid: number) => {
  const s = cpuSeconds(pid);
  return s === null ? null : s * 1000;
};
const medianOrNull = (xs: readonly (number | null)[]) => (xs.includes(null) ? null : median(xs as number[]));

async function post(client: KeepAliveClient, path: string, body: unknown): Promise<{ ms: number; json: { sessionId: string } }> {
  const answer = await client.request("POST", path, body);
  if (answer.status !== 200) throw new Error(`POST ${path} answered ${answer.status}: ${answer.text}`);
  return { ms: answer.answeredAt - answer.sentAt, json: JSON.parse(answer.text) as { sessionId: string } };
}

interface FirstSample {
  readonly ms: number;
  readonly daemonCpuMs: number | null;
  readonly agentCpuMs: number | null;
}

async function firstSessionOnce(svc: readonly string[], agent: AgentChoice, home: string): Promise<FirstSample> {
  const daemon = await startAgentDaemon(svc, agent.entry, home);
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    const before = cpuMs(daemon.proc.pid);
    const { ms } = await post(client, "/session", {});
    const after = cpuMs(daemon.proc.pid);
    client.close();
    const { childPids } = await daemonStatus(daemon.url);
    if (childPids.length !== 1) throw new Error(`expected one agent child, the daemon reports ${childPids.length}`);
    return { ms, daemonCpuMs: before === null || after === null ? null : after - before, agentCpuMs: cpuMs(childPids[0]!) };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

async function measureFirstSession(options: SessionsOptions, runs: number): Promise<FirstSessionRow[]> {
  const ws = scratchDir("agent-alone");
  const samples = options.agents.map(() => ({ posts: [] as FirstSample[], alone: [] as AgentStartTiming[] }));
  // One untimed round first: every executable and entry is then in the page cache.
  for (let run = -1; run < runs; run++)
    for (const [i, agent] of options.agents.entries()) {
      const post = await firstSessionOnce(options.svc, agent, options.agentRuntime.home);
      const alone = await timeAgentStart(options.agentRuntime, agent.entry, ws);
      if (run < 0) continue;
      samples[i]!.posts.push(post);
      samples[i]!.alone.push(alone);
    }
  return options.agents.map((agent, i) => {
    const { posts, alone } = samples[i]!;
    const postMs = posts.map((s) => s.ms);
    const aloneMedian: AgentStartTiming = {
      firstByteMs: median(alone.map((a) => a.firstByteMs)),
      initializeMs: median(alone.map((a) => a.initializeMs)),
      sessionNewMs: median(alone.map((a) => a.sessionNewMs)),
      cpuMs: medianOrNull(alone.map((a) => a.cpuMs)),
    };
    return {
      agent: agent.name,
      runs,
      medianMs: median(postMs),
      p90Ms: percentile(postMs, 90),
      daemonCpuMs: medianOrNull(posts.map((s) => s.daemonCpuMs)),
      agentCpuMs: medianOrNull(posts.map((s) => s.agentCpuMs)),
      alone: aloneMedian,
      daemonShareMs: median(postMs) - aloneMedian.sessionNewMs,
    };
  });
}

async function measureThreadCreates(options: SessionsOptions, runs: number, warmup: number): Promise<ThreadCreateResult> {
  const daemon = await startAgentDaemon(options.svc, options.agents[1].entry, options.agentRuntime.home);
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    await post(client, "/session", {});
    for (let i = 0; i < warmup; i++) await post(client, "/session", { sessionScope: "thread" });
    const samples: number[] = [];
    const before = cpuSeconds(daemon.proc.pid);
    for (let i = 0; i < runs; i++) samples.push((await post(client, "/session", { sessionScope: "thread" })).ms);
    const after = cpuSeconds(daemon.proc.pid);
    client.close();
    return {
      runs,
      p50Ms: median(samples),
      p95Ms: percentile(samples, 95),
      p99Ms: percentile(samples, 99),
      daemonCpuUsPerCreate: before === null || after === null ? null : ((after - before) * 1e6) / runs,
    };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

interface MemoryReading {
  readonly daemonMb: number;
  readonly agentMb: number;
  readonly daemonHeapMb: number;
}

async function treeMemory(daemon: AgentDaemon): Promise<MemoryReading> {
  const own = residentMemory(daemon.proc.pid);
  if (own === null) throw new Error("cannot read VmRSS from /proc (not Linux?)");
  const { childPids, heapUsedMb } = await daemonStatus(daemon.url);
  const agentMb = childPids.reduce((sum, pid) => sum + (residentMemory(pid)?.rssMb ?? 0), 0);
  return { daemonMb: own.rssMb, agentMb, daemonHeapMb: heapUsedMb };
}

async function rssOnce(options: SessionsOptions, settleMs: number): Promise<MemoryReading[]> {
  const daemon = await startAgentDaemon(options.svc, options.agents[1].entry, options.agentRuntime.home);
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    await post(client, "/session", {});
    for (let i = 0; i < RSS_WARM_CYCLES; i++) {
      const { json } = await post(client, "/session", { sessionScope: "thread" });
      const closed = await client.request("DELETE", `/session/${encodeURIComponent(json.sessionId)}`);
      if (closed.status !== 204) throw new Error(`DELETE /session answered ${closed.status}: ${closed.text}`);
    }
    const readings: MemoryReading[] = [];
    let live = 1;
    for (const target of RSS_POINTS) {
      for (; live < target; live++) await post(client, "/session", { sessionScope: "thread" });
      await Bun.sleep(settleMs);
      readings.push(await treeMemory(daemon));
    }
    client.close();
    return readings;
  } finally {
    await stopAgentDaemon(daemon);
  }
}

export async function measureSessions(options: SessionsOptions): Promise<SessionsResult> {
  const settings = SESSIONS_SETTINGS[options.quick ? "quick" : "full"];
  options.progress(`sessions: first POST /session on fresh daemons, ${settings.firstRuns} runs × ${options.agents.length} agents (and each agent alone)…`);
  const firstSession = await measureFirstSession(options, settings.firstRuns);
  options.progress(`sessions: ${settings.creates} thread creates on a warm child…`);
  const threadCreate = await measureThreadCreates(options, settings.creates, settings.createWarmup);
  options.progress(`sessions: RSS at ${RSS_POINTS.join("/")} live sessions, ${settings.rssDaemons} daemon(s)…`);
  const perDaemon: MemoryReading[][] = [];
  for (let i = 0; i < settings.rssDaemons; i++) perDaemon.push(await rssOnce(options, settings.settleMs));
  const rows = RSS_POINTS.map((sessions, point) => {
    const daemonMb = median(perDaemon.map((d) => d[point]!.daemonMb));
    const agentMb = median(perDaemon.map((d) => d[point]!.agentMb));
    const treeMb = median(perDaemon.map((d) => d[point]!.daemonMb + d[point]!.agentMb));
    return { sessions, daemonMb, agentMb, treeMb, daemonHeapMb: median(perDaemon.map((d) => d[point]!.daemonHeapMb)) };
  });
  const last = RSS_POINTS.length - 1;
  const extraSessions = RSS_POINTS[last]! - RSS_POINTS[0];
  const growthKb = (pick: (r: MemoryReading) => number) =>
    median(perDaemon.map((d) => ((pick(d[last]!) - pick(d[0]!)) * 1000) / extraSessions));
  return {
    agentRuntime: `${options.agentRuntime.execPath} ${Object.entries(options.agentRuntime.env).map(([k, v]) => `${k}=${v}`).join(" ")}`.trim(),
    firstSession,
    threadCreate,
    rss: {
      daemons: settings.rssDaemons,
      settleMs: settings.settleMs,
      rows,
      daemonKbPerSession: growthKb((r) => r.daemonMb),
      agentKbPerSession: growthKb((r) => r.agentMb),
      daemonHeapKbPerSession: growthKb((r) => r.daemonHeapMb),
    },
  };
}

export function renderSessions(s: SessionsResult): string {
  const orNa = (n: number | null) => (n === null ? "?" : fmt.ms(n));
  const first = s.firstSession.map((r) => [
    r.agent,
    fmt.ms(r.medianMs),
    fmt.ms(r.p90Ms),
    orNa(r.daemonCpuMs),
    orNa(r.agentCpuMs),
    fmt.ms(r.alone.firstByteMs),
    fmt.ms(r.alone.initializeMs),
    fmt.ms(r.alone.sessionNewMs),
    orNa(r.alone.cpuMs),
    fmt.ms(r.daemonShareMs),
  ]);
  const t = s.threadCreate;
  const rss = s.rss.rows.map((r) => [String(r.sessions), fmt.mb(r.daemonMb), fmt.mb(r.agentMb), fmt.mb(r.treeMb), fmt.mb(r.daemonHeapMb)]);
  return [
    `Sessions: first POST /session on a fresh daemon (spawn + initialize + session/new; ${s.firstSession[0]?.runs} runs per agent, interleaved, after one untimed round)`,
    `  agent child = the fake ACP agent run by ${s.agentRuntime}; "alone" = the same child started by a direct NDJSON client`,
    table(["agent", "POST median", "p90", "daemon CPU", "agent CPU", "alone: 1st byte", "initialize", "session/new", "CPU", "daemon share"], first),
    `  (medians; daemon share = POST median − alone session/new median; daemon CPU = its CPU time during the request, less sensitive to other load than wall time)`,
    "",
    `Thread creates (sessionScope: thread) on a warm child, ${t.runs} sequential keep-alive requests`,
    table(["runs", "p50", "p95", "p99", "daemon CPU µs/create"], [[String(t.runs), fmt.ms(t.p50Ms), fmt.ms(t.p95Ms), fmt.ms(t.p99Ms), t.daemonCpuUsPerCreate === null ? "?" : t.daemonCpuUsPerCreate.toFixed(0)]]),
    "",
    `RSS with live sessions (VmRSS after ${s.rss.settleMs} ms settle; medians over ${s.rss.daemons} daemon(s); create path warmed first)`,
    table(["live sessions", "daemon", "agent child", "tree", "daemon JS heap in use"], rss),
    `  per extra session ((@100 − @1) / 99, KB = 10^3 bytes): daemon RSS ${s.rss.daemonKbPerSession.toFixed(1)} KB, agent child RSS ${s.rss.agentKbPerSession.toFixed(1)} KB,`,
    `  daemon JS heap ${s.rss.daemonHeapKbPerSession.toFixed(1)} KB (RSS moves in allocator-sized steps; the heap counts uncollected garbage too)`,
  ].join("\n");
}
