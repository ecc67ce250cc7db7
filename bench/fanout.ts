/**
 * Event fan-out: N live subscribers on one session, each prompt streaming `chunks` agent chunks
 * `spacingMs` apart. The subscribers live in separate load processes (`lib/fanout-worker.ts`, up to
 * SUBSCRIBERS_PER_WORKER each), so the daemon's figures are its own and the bench's event loop stays
 * free. Per round (one prompt; round 0 is a discarded warm-up) every subscriber must receive every
 * event of the turn, in order, from the bridge echo to `turn_complete`. Figures:
 * - delivery lag per (subscriber, event): arrival − envelope `serverTimestamp` (whole ms, so the lag
 *   reads up to 1 ms high), and arrival − the first subscriber's arrival of the same event;
 * - daemon CPU per delivered frame (less sensitive to outside load than the latencies);
 * - daemon RSS before subscribing, with everyone subscribed, and after they have all gone; the same
 *   for its JS heap in use (RSS alone hides whether memory is still referenced or merely kept by the
 *   allocator).
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { cpuSeconds } from "./lib/cpu.ts";
import { daemonStatus, startAgentDaemon, stopAgentDaemon } from "./lib/agent-daemon.ts";
import { launch, SVC_BINARY, type Launched } from "./lib/servers.ts";
import type { RoundReport } from "./lib/fanout-worker.ts";
import { KeepAliveClient } from "./lib/keep-alive-client.ts";
import { scratchDir, spawnTracked, stopProcess } from "./lib/procs.ts";
import { residentMemory } from "./lib/rss.ts";
import { percentile } from "./lib/stats.ts";

const WORKER = join(import.meta.dir, "lib", "fanout-worker.ts");
/** Subscriptions per load process. */
export const SUBSCRIBERS_PER_WORKER = 500;
/** How long the daemon gets to notice that every subscriber has gone. */
const DISCONNECT_TIMEOUT_MS = 10_000;

/** The server a fan-out runs against: svc with the fake agent, or the bare compiled floor. */
export interface FanoutServer {
  readonly name: string;
  start(): Promise<{ readonly launched: Launched; stop(): Promise<void> }>;
}

export const BARE_FANOUT_NAME = "bare compiled Bun.serve fan-out (floor)";

export function svcFanoutServer(svc: readonly string[], agentEntry: string, home: string): FanoutServer {
  return {
    name: SVC_BINARY,
    async start() {
      const daemon = await startAgentDaemon(svc, agentEntry, home);
      return { launched: daemon, stop: () => stopAgentDaemon(daemon) };
    },
  };
}

/** `servers/bare-fanout.ts` compiled: the same frames to the same subscribers, the cheapest way Bun offers. */
export function bareFanoutServer(binary: string): FanoutServer {
  return {
    name: BARE_FANOUT_NAME,
    async start() {
      const launched = await launch({ name: BARE_FANOUT_NAME, cmd: [binary], env: { PATH: process.env.PATH ?? "" }, stderrPath: join(scratchDir("log"), "stderr.log") });
      return { launched, stop: () => stopProcess(launched.proc) };
    },
  };
}

export interface FanoutPlan {
  readonly subscribers: number;
  readonly rounds: number;
  readonly chunks: number;
  readonly spacingMs: number;
  readonly settleMs: number;
}

export interface FanoutRow extends FanoutPlan {
  readonly server: string;
  readonly workers: number;
  /** Events per round: bridge echo + chunks + turn_complete. */
  readonly eventsPerRound: number;
  /** The event rate on the session: events of the measured rounds ÷ their span (first to last envelope `serverTimestamp` of each round). */
  readonly eventsPerSecond: number;
  /** Frames delivered per second, all subscribers together. */
  readonly framesPerSecond: number;
  /** Over every (subscriber, event) of the measured rounds. */
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly spreadP50Ms: number;
  readonly spreadP99Ms: number;
  /** Subscriber-rounds that missed an event, got one out of order or got anything extra. */
  readonly mismatches: number;
  readonly daemonCpuUsPerFrame: number | null;
  readonly rssBeforeMb: number;
  readonly rssWithMb: number;
  readonly rssAfterMb: number;
  readonly heapBeforeMb: number;
  readonly heapWithMb: number;
  readonly heapAfterMb: number;
  /** CPU the load processes used in all, for context. */
  readonly workerCpuMs: number | null;
}

/** Splits a byte stream into lines. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    pending += decoder.decode(value, { stream: true });
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
      yield pending.slice(0, nl);
      pending = pending.slice(nl + 1);
    }
  }
}

function rssMb(pid: number): number {
  const own = residentMemory(pid);
  if (own === null) throw new Error("cannot read VmRSS from /proc (not Linux?)");
  return own.rssMb;
}

/** Is this subscriber's round exactly ids first..first+expected-1, in order, ending with turn_complete? */
function roundMatches(sub: RoundReport["subscribers"][number], firstId: number, expected: number): boolean {
  if (sub.idLess.length > 0 || sub.lastType !== "turn_complete" || sub.frames.length !== expected) return false;
  return sub.frames.every(([id], i) => id === firstId + i);
}

export async function measureFanout(server: FanoutServer, plan: FanoutPlan): Promise<FanoutRow> {
  const started = await server.start();
  const daemon = started.launched;
  const workers: Subprocess<"ignore", "pipe", "pipe">[] = [];
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    const created = await client.request("POST", "/session", {});
    if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${created.text}`);
    const sessionId = (JSON.parse(created.text) as { sessionId: string }).sessionId;
    await Bun.sleep(plan.settleMs);
    const rssBeforeMb = rssMb(daemon.proc.pid);
    const heapBeforeMb = (await daemonStatus(daemon.url)).heapUsedMb;

    const readers: AsyncGenerator<string>[] = [];
    for (let left = plan.subscribers; left > 0; left -= SUBSCRIBERS_PER_WORKER) {
      const proc = spawnTracked([process.execPath, WORKER, daemon.url, sessionId, String(Math.min(left, SUBSCRIBERS_PER_WORKER))], { stdout: "pipe", stderr: "pipe" });
      workers.push(proc);
      readers.push(lines(proc.stdout));
    }
    const nextReport = async (i: number): Promise<string> => {
      const { done, value } = await readers[i]!.next();
      if (done) throw new Error(`fan-out worker exited ${await workers[i]!.exited}: ${await new Response(workers[i]!.stderr).text()}`);
      return value;
    };
    await Promise.all(readers.map((_, i) => nextReport(i)));

    const eventsPerRound = plan.chunks + 2;
    const lags: number[] = [];
    const spreads: number[] = [];
    let mismatches = 0;
    let cpuBefore: number | null = null;
    /** Sum over the measured rounds of first → last serverTimestamp. */
    let spanMs = 0;
    for (let round = 0; round <= plan.rounds; round++) {
      if (round === 1) cpuBefore = cpuSeconds(daemon.proc.pid);
      const answer = await client.request("POST", `/session/${encodeURIComponent(sessionId)}/prompt`, { prompt: [{ type: "text", text: `@stream ${plan.chunks} ${plan.spacingMs}` }] });
      if (answer.status !== 202) throw new Error(`POST /prompt answered ${answer.status}: ${answer.text}`);
      const firstId = (JSON.parse(answer.text) as { lastEventId: number }).lastEventId + 1;
      const reports = (await Promise.all(readers.map((_, i) => nextReport(i)))).map((line) => JSON.parse(line) as RoundReport);
      if (round === 0) continue;
      const subs = reports.flatMap((r) => r.subscribers);
      const stamps = subs[0]?.frames.map(([, , serverTimestamp]) => serverTimestamp) ?? [];
      spanMs += Math.max(1, Math.max(...stamps) - Math.min(...stamps));
      mismatches += subs.filter((sub) => !roundMatches(sub, firstId, eventsPerRound)).length;
      const firstArrival = new Map<number, number>();
      for (const sub of subs) for (const [id, at] of sub.frames) firstArrival.set(id, Math.min(at, firstArrival.get(id) ?? Infinity));
      for (const sub of subs)
        for (const [id, at, serverTimestamp] of sub.frames) {
          lags.push(at - serverTimestamp);
          spreads.push(at - firstArrival.get(id)!);
        }
    }
    const cpuAfter = cpuSeconds(daemon.proc.pid);
    const frames = plan.subscribers * eventsPerRound * plan.rounds;
    await Bun.sleep(plan.settleMs);
    const rssWithMb = rssMb(daemon.proc.pid);
    const heapWithMb = (await daemonStatus(daemon.url)).heapUsedMb;
    const workerCpu = workers.map((w) => cpuSeconds(w.pid));
    client.close();

    await Promise.all(workers.map((w) => stopProcess(w)));
    const deadline = performance.now() + DISCONNECT_TIMEOUT_MS;
    while ((await daemonStatus(daemon.url)).sseStreams > 0) {
      if (performance.now() > deadline) throw new Error(`the daemon still counts open SSE streams ${DISCONNECT_TIMEOUT_MS} ms after every subscriber left`);
      await Bun.sleep(20);
    }
    await Bun.sleep(plan.settleMs);
    const rssAfterMb = rssMb(daemon.proc.pid);
    const heapAfterMb = (await daemonStatus(daemon.url)).heapUsedMb;
    return {
      ...plan,
      server: server.name,
      workers: workers.length,
      eventsPerRound,
      eventsPerSecond: (eventsPerRound * plan.rounds * 1000) / spanMs,
      framesPerSecond: (frames * 1000) / spanMs,
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      spreadP50Ms: percentile(spreads, 50),
      spreadP99Ms: percentile(spreads, 99),
      mismatches,
      daemonCpuUsPerFrame: cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / frames,
      rssBeforeMb,
      rssWithMb,
      rssAfterMb,
      heapBeforeMb,
      heapWithMb,
      heapAfterMb,
      workerCpuMs: workerCpu.includes(null) ? null : (workerCpu as number[]).reduce((a, b) => a + b, 0) * 1000,
    };
  } finally {
    await Promise.all(workers.map((w) => stopProcess(w)));
    await started.stop();
  }
}
