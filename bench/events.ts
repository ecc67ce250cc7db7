/**
 * Events (issue 4), on the compiled binary with the pre-bundled fake agent as its child:
 * - prompt round trips, one at a time on one session: `POST /session/:id/prompt` → `202` (a raw
 *   keep-alive connection), → the prompt's first event on an SSE stream opened beforehand (the
 *   bridge echo), → its `turn_complete`; the agent echoes the text. Daemon CPU per prompt;
 * - fan-out to 100 and 1000 subscribers (`fanout.ts`);
 * - replay: the ring filled by one `@stream 8000` prompt, then fresh subscriptions with
 *   `Last-Event-ID: 0`, timed from just before connecting until `replay_complete` arrives.
 * Subscribers are raw-socket readers that only timestamp chunks while timing (`lib/sse-subscriber.ts`).
 */
import { cpuSeconds } from "./lib/cpu.ts";
import { daemonStatus, startAgentDaemon, stopAgentDaemon, type AgentDaemon } from "./lib/agent-daemon.ts";
import { KeepAliveClient } from "./lib/keep-alive-client.ts";
import { SseSubscriber } from "./lib/sse-subscriber.ts";
import { median, percentile } from "./lib/stats.ts";
import { fmt, table } from "./lib/table.ts";
import { bareFanoutServer, measureFanout, SUBSCRIBERS_PER_WORKER, svcFanoutServer, type FanoutRow } from "./fanout.ts";

export const EVENTS_SETTINGS = {
  full: { prompts: 300, promptWarmup: 100, replays: 20, replayWarmup: 3, fanoutRounds: 5, settleMs: 1000 },
  quick: { prompts: 30, promptWarmup: 10, replays: 3, replayWarmup: 1, fanoutRounds: 2, settleMs: 200 },
};

/** Fan-out rows; a quick run keeps only the one the target speaks of. */
const FANOUT_SUBSCRIBERS = { full: [100, 1000], quick: [1000] } as const;
const FANOUT_CHUNKS = 50;
/** Chunk spacing of the fan-out prompt: a steady stream, like a model's tokens. */
const FANOUT_SPACING_MS = 10;
/** `GET /health` requests timed on the prompt connection first: the HTTP floor under the 202. */
const HEALTH_RUNS = 200;
/** Agent chunks streamed to fill the replay ring (8000 frames by default). */
const REPLAY_FILL_CHUNKS = 8000;
const WAIT_MS = 30_000;

export interface PromptLatency {
  readonly runs: number;
  /** `GET /health` on the same connection (answered before the router): what any request costs. */
  readonly healthP50Ms: number;
  readonly ackP50Ms: number;
  readonly ackP99Ms: number;
  readonly firstEventP50Ms: number;
  readonly firstEventP99Ms: number;
  readonly turnP50Ms: number;
  readonly turnP99Ms: number;
  /** Prompts whose first event arrived before their 202 (the echo is published during admission). */
  readonly eventBeforeAck: number;
  readonly daemonCpuUsPerPrompt: number | null;
}

export interface ReplayResult {
  readonly runs: number;
  /** `replay_complete.data.replayedCount` (first run; checked against the frames that arrived). */
  readonly replayed: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly daemonCpuMsPerReplay: number | null;
}

export interface EventsResult {
  readonly prompts: PromptLatency;
  readonly fanout: readonly FanoutRow[];
  readonly replay: ReplayResult;
}

export interface EventsOptions {
  readonly svc: readonly string[];
  /** The pre-bundled fake agent, and the HOME its daemons get. */
  readonly agentEntry: string;
  readonly home: string;
  /** The compiled bare fan-out (`servers/bare-fanout.ts`): the floor of the 1000-subscriber row. */
  readonly bareFanout: string;
  readonly quick: boolean;
  readonly progress: (text: string) => void;
}

async function openSession(daemon: AgentDaemon): Promise<{ client: KeepAliveClient; sessionId: string }> {
  const client = await KeepAliveClient.connect(daemon.url);
  const created = await client.request("POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${created.text}`);
  return { client, sessionId: (JSON.parse(created.text) as { sessionId: string }).sessionId };
}

async function prompt(client: KeepAliveClient, sessionId: string, text: string) {
  const answer = await client.request("POST", `/session/${encodeURIComponent(sessionId)}/prompt`, { prompt: [{ type: "text", text }] });
  if (answer.status !== 202) throw new Error(`POST /prompt answered ${answer.status}: ${answer.text}`);
  return { ...answer, promptId: (JSON.parse(answer.text) as { promptId: string }).promptId };
}

async function measurePrompts(options: EventsOptions, runs: number, warmup: number): Promise<PromptLatency> {
  const daemon = await startAgentDaemon(options.svc, options.agentEntry, options.home);
  try {
    const { client, sessionId } = await openSession(daemon);
    const sub = await SseSubscriber.open(daemon.url, `/session/${encodeURIComponent(sessionId)}/events`, { watch: ["turn_complete"] });
    const health: number[] = [];
    for (let i = 0; i < 2 * HEALTH_RUNS; i++) {
      const answer = await client.request("GET", "/health");
      if (i >= HEALTH_RUNS) health.push(answer.answeredAt - answer.sentAt);
    }
    const timed: { promptId: string; sentAt: number; ackAt: number; turnAt: number }[] = [];
    let cpuBefore: number | null = null;
    for (let i = 0; i < warmup + runs; i++) {
      if (i === warmup) cpuBefore = cpuSeconds(daemon.proc.pid);
      const answer = await prompt(client, sessionId, `hello ${i}`);
      const turnAt = await sub.waitFor("turn_complete", i + 1, WAIT_MS);
      if (i >= warmup) timed.push({ promptId: answer.promptId, sentAt: answer.sentAt, ackAt: answer.answeredAt, turnAt });
    }
    const cpuAfter = cpuSeconds(daemon.proc.pid);
    const firstOf = new Map<string, { arrivedAt: number; echo: boolean }>();
    for (const frame of sub.frames()) {
      if (frame.promptId === undefined || firstOf.has(frame.promptId)) continue;
      const update = (frame.data as { update?: { sessionUpdate?: string } } | null)?.update;
      firstOf.set(frame.promptId, { arrivedAt: frame.arrivedAt, echo: frame.type === "session_update" && update?.sessionUpdate === "user_message_chunk" });
    }
    sub.close();
    client.close();
    const firstEvent = timed.map((t) => {
      const first = firstOf.get(t.promptId);
      if (first === undefined || !first.echo) throw new Error(`prompt ${t.promptId}: its first event is not the bridge echo`);
      return first.arrivedAt;
    });
    const ack = timed.map((t) => t.ackAt - t.sentAt);
    const toFirst = timed.map((t, i) => firstEvent[i]! - t.sentAt);
    const toTurn = timed.map((t) => t.turnAt - t.sentAt);
    return {
      runs,
      healthP50Ms: median(health),
      ackP50Ms: median(ack),
      ackP99Ms: percentile(ack, 99),
      firstEventP50Ms: median(toFirst),
      firstEventP99Ms: percentile(toFirst, 99),
      turnP50Ms: median(toTurn),
      turnP99Ms: percentile(toTurn, 99),
      eventBeforeAck: timed.filter((t, i) => firstEvent[i]! < t.ackAt).length,
      daemonCpuUsPerPrompt: cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / runs,
    };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

async function measureReplay(options: EventsOptions, runs: number, warmup: number): Promise<ReplayResult> {
  const daemon = await startAgentDaemon(options.svc, options.agentEntry, options.home);
  try {
    const { client, sessionId } = await openSession(daemon);
    const path = `/session/${encodeURIComponent(sessionId)}`;
    await prompt(client, sessionId, `@stream ${REPLAY_FILL_CHUNKS}`);
    const deadline = performance.now() + WAIT_MS;
    for (;;) {
      const pending = await client.request("GET", `${path}/pending-prompts`);
      if ((JSON.parse(pending.text) as { pendingPrompts: unknown[] }).pendingPrompts.length === 0) break;
      if (performance.now() > deadline) throw new Error(`the @stream ${REPLAY_FILL_CHUNKS} prompt did not finish within ${WAIT_MS} ms`);
      await Bun.sleep(20);
    }
    client.close();
    const samples: number[] = [];
    const cpu: (number | null)[] = [];
    let replayed = 0;
    for (let i = 0; i < warmup + runs; i++) {
      const before = cpuSeconds(daemon.proc.pid);
      const sub = await SseSubscriber.open(daemon.url, `${path}/events`, { headers: { "Last-Event-ID": "0" }, watch: ["replay_complete"] });
      const doneAt = await sub.waitFor("replay_complete", 1, WAIT_MS);
      const after = cpuSeconds(daemon.proc.pid);
      if (i === 0) {
        const frames = sub.frames();
        const at = frames.findIndex((f) => f.type === "replay_complete");
        replayed = (frames[at]?.data as { replayedCount?: number } | undefined)?.replayedCount ?? 0;
        // What came after replay_complete is live (the turn's auto title may land just then).
        const arrived = frames.slice(0, at).filter((f) => f.id !== undefined).length;
        if (arrived !== replayed) throw new Error(`replay_complete says ${replayed} replayed, ${arrived} frames arrived`);
      }
      sub.close();
      if (i >= warmup) {
        samples.push(doneAt - sub.startedAt);
        cpu.push(before === null || after === null ? null : (after - before) * 1000);
      }
      while ((await daemonStatus(daemon.url)).sseStreams > 0) await Bun.sleep(5);
    }
    return { runs, replayed, p50Ms: median(samples), p90Ms: percentile(samples, 90), daemonCpuMsPerReplay: cpu.includes(null) ? null : median(cpu as number[]) };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

export async function measureEvents(options: EventsOptions): Promise<EventsResult> {
  const settings = EVENTS_SETTINGS[options.quick ? "quick" : "full"];
  options.progress(`events: ${settings.prompts} echo prompts, one at a time…`);
  const prompts = await measurePrompts(options, settings.prompts, settings.promptWarmup);
  const fanout: FanoutRow[] = [];
  const svc = svcFanoutServer(options.svc, options.agentEntry, options.home);
  for (const subscribers of FANOUT_SUBSCRIBERS[options.quick ? "quick" : "full"]) {
    // The largest row is also measured on the floor, right after svc, with the same load processes.
    const servers = subscribers === 1000 ? [svc, bareFanoutServer(options.bareFanout)] : [svc];
    for (const server of servers) {
      options.progress(`events: fan-out to ${subscribers} subscribers on ${server.name}, ${settings.fanoutRounds} rounds of @stream ${FANOUT_CHUNKS} ${FANOUT_SPACING_MS}…`);
      fanout.push(
        await measureFanout(server, {
          subscribers,
          rounds: settings.fanoutRounds,
          chunks: FANOUT_CHUNKS,
          spacingMs: FANOUT_SPACING_MS,
          settleMs: settings.settleMs,
        }),
      );
    }
  }
  options.progress(`events: replay of a full ring from Last-Event-ID: 0, ${settings.replays} runs…`);
  const replay = await measureReplay(options, settings.replays, settings.replayWarmup);
  return { prompts, fanout, replay };
}

export function renderEvents(e: EventsResult): string {
  const p = e.prompts;
  const orNa = (n: number | null, digits: number) => (n === null ? "?" : n.toFixed(digits));
  const fan = e.fanout.map((f) => [
    f.server,
    String(f.subscribers),
    String(f.workers),
    String(f.eventsPerRound),
    fmt.int(Math.round(f.eventsPerSecond)),
    fmt.int(Math.round(f.framesPerSecond)),
    String(f.rounds),
    fmt.ms(f.lagP50Ms),
    fmt.ms(f.lagP99Ms),
    fmt.ms(f.spreadP50Ms),
    fmt.ms(f.spreadP99Ms),
    String(f.mismatches),
    orNa(f.daemonCpuUsPerFrame, 1),
    fmt.mb(f.rssBeforeMb),
    fmt.mb(f.rssWithMb),
    fmt.mb(f.rssAfterMb),
    `${f.heapBeforeMb.toFixed(1)} / ${f.heapWithMb.toFixed(1)} / ${f.heapAfterMb.toFixed(1)}`,
  ]);
  const f0 = e.fanout[0]!;
  const r = e.replay;
  return [
    `Events: prompt round trips, one at a time on one session (${p.runs} echo prompts after a warm-up; raw keep-alive POST, SSE stream already open)`,
    table(
      ["runs", "GET /health p50", "202 ack p50", "p99", "→ first event p50", "p99", "→ turn_complete p50", "p99", "daemon CPU µs/prompt"],
      [[String(p.runs), fmt.ms(p.healthP50Ms), fmt.ms(p.ackP50Ms), fmt.ms(p.ackP99Ms), fmt.ms(p.firstEventP50Ms), fmt.ms(p.firstEventP99Ms), fmt.ms(p.turnP50Ms), fmt.ms(p.turnP99Ms), orNa(p.daemonCpuUsPerPrompt, 0)]],
    ),
    `  (times from just before the request is written; GET /health on the same connection is the HTTP floor; the first event is`,
    `  the bridge echo, which arrived before the 202 in ${p.eventBeforeAck} of ${p.runs}; daemon CPU covers the whole turn: 202, agent round trip, 3 events)`,
    "",
    `Fan-out: one session, ${f0.rounds} rounds of @stream ${f0.chunks} ${f0.spacingMs} (chunks ${f0.spacingMs} ms apart) after a warm-up round; subscribers live in`,
    `  separate Bun load processes (≤ ${SUBSCRIBERS_PER_WORKER} raw-socket subscriptions each, which only timestamp chunks until the round is over)`,
    table(["server", "subscribers", "load procs", "events/round", "events/s", "frames/s delivered", "rounds", "lag p50", "lag p99", "vs 1st sub p50", "p99", "mismatches", "daemon CPU µs/frame", "RSS before", "with subs", "after they left", "JS heap MB (same points)"], fan),
    `  lag = arrival − envelope serverTimestamp (whole ms: reads up to 1 ms high); "vs 1st sub" = arrival − earliest arrival of the same event;`,
    `  mismatches = subscriber-rounds that missed an event, got one out of order or anything extra; RSS = daemon VmRSS;`,
    `  "after" readings come once the daemon counts no open stream; its heap then still holds garbage an idle daemon has not collected`,
    "",
    `Replay: fresh subscription with Last-Event-ID: 0 on a full ring, connect → replay_complete (${r.runs} runs after a warm-up)`,
    table(["runs", "events replayed", "p50", "p90", "daemon CPU ms/replay"], [[String(r.runs), fmt.int(r.replayed), fmt.ms(r.p50Ms), fmt.ms(r.p90Ms), orNa(r.daemonCpuMsPerReplay, 2)]]),
  ].join("\n");
}
