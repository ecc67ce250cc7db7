/**
 * The issues' targets (foundation, sessions, events, and issue 23's floor: ratios to a bare compiled
 * `Bun.serve` and a bare compiled version printer built in the same run), and the reference
 * daemon's figures (`qwen serve` 0.24.4) for scale. Printed next to each measurement with pass or
 * fail; never used to fail a run.
 */
export const TARGETS = {
  /** Spawn → first `/health` 200, svc binary ÷ bare compiled Bun.serve (at most). */
  startupVsBare: 2,
  /** `svc --version` ÷ a bare compiled binary that prints a version (at most). */
  versionVsBare: 2,
  /** Idle RSS, svc binary ÷ bare compiled Bun.serve (at most). */
  rssVsBare: 1.5,
  /** Built-in agent: spawn → `initialize` answered, ms (at most). */
  agentInitMs: 50,
  /** Built-in agent: idle RSS after a session and a few turns, MB (at most). */
  agentIdleRssMb: 35,
  /** Daemon spawned cold → first `POST /session` answered with the built-in agent, ms (at most). */
  builtinFirstSessionMs: 120,
  /** 1 − journal-on ÷ journal-off event throughput (at most). */
  journalCost: 0.1,
  /** Spawn → first `GET /health` 200, compiled binary, ms (at most). */
  startupMs: 50,
  /** Idle RSS after start and a few requests, MB (at most). */
  idleRssMb: 40,
  /** `GET /health` at concurrency 50, requests/s (at least). */
  healthRps: 50_000,
  /** svc `/health` rps ÷ bare `Bun.serve` rps at concurrency 50 (at least). */
  healthVsBare: 0.75,
  /** `GET /capabilities` at concurrency 50, requests/s (at least). */
  capabilitiesRps: 30_000,
  /**
   * Application bytes in the binary, MB (at most): binary − a bare compiled runtime of the same Bun
   * (issue 23). It replaced the foundation's 110 MB bound on the whole binary, which the bare Bun
   * 1.4 runtime alone (109.1 MB) all but fills.
   */
  payloadMb: 3,
  /** First `POST /session` on a fresh daemon, child spawn and initialize included, ms (at most). */
  firstSessionMs: 150,
  /** `sessionScope: thread` create on a warm child, ms (at most). */
  threadCreateP50Ms: 5,
  threadCreateP95Ms: 15,
  /** Daemon RSS per extra live session, KB (at most). */
  sessionKb: 250,
  /** `POST /session/:id/prompt` → 202, median ms (at most). */
  promptAckP50Ms: 0.5,
  /** Prompt POST → its first event on an open SSE stream, median ms (at most). */
  promptFirstEventP50Ms: 1,
  /** Per-event delivery lag p99 with 1000 subscribers on one session, ms (at most). */
  fanout1000P99Ms: 5,
  /** Replay of a full ring (~8000 events) from `Last-Event-ID: 0`, ms (at most). */
  replayMs: 20,
} as const;

export const REFERENCE = {
  name: "qwen serve 0.24.4",
  startupMs: 1662,
  idleRssMb: 208,
  healthRps: 3_900,
  capabilitiesRps: 2_300,
  firstSessionMs: 3300,
  threadCreateP50Ms: 96,
  threadCreateP95Ms: 178,
  sessionKb: 2400,
  promptAckP50Ms: 3.7,
  promptFirstEventP50Ms: 5.6,
  /** For 7162 events. (Its fan-out has a hard cap of 64 subscribers, so no 1000-subscriber figure.) */
  replayMs: 103,
} as const;

/** A figure with its floor: svc's absolute value and the bare baseline's, measured in the same run. */
export interface VsBare {
  readonly svc: number;
  readonly bare: number;
}

/** svc's figure and the baseline's from one section's rows (by name), or null when either is missing. */
export function vsBare<R extends { readonly name: string }>(rows: readonly R[] | undefined, figure: (row: R) => number, svcName: string, bareName: string): VsBare | null {
  const svc = rows?.find((r) => r.name === svcName);
  const bare = rows?.find((r) => r.name === bareName);
  return svc === undefined || bare === undefined ? null : { svc: figure(svc), bare: figure(bare) };
}

/** The measured figures the targets speak of; a section that did not run leaves its figures null (or out). */
export interface Measured {
  readonly startupVsBare?: VsBare | null;
  readonly versionVsBare?: VsBare | null;
  readonly rssVsBare?: VsBare | null;
  readonly agentInitMs?: number | null;
  readonly agentIdleRssMb?: number | null;
  readonly builtinFirstSessionMs?: number | null;
  readonly journalCost?: { readonly cost: number; readonly offEventsPerSecond: number; readonly onEventsPerSecond: number } | null;
  /** Delivered frames per second (all subscribers) during the 1000-subscriber fan-out, and events per second on the session. */
  readonly fanout1000Rate?: { readonly eventsPerSecond: number; readonly framesPerSecond: number } | null;
  /** The same lag on the bare compiled fan-out (`servers/bare-fanout.ts`), same run, same load processes. */
  readonly fanout1000BareP99Ms?: number | null;
  readonly startupMs: number | null;
  readonly idleRssMb: number | null;
  readonly healthRps: number | null;
  readonly healthVsBare: number | null;
  readonly capabilitiesRps: number | null;
  readonly payloadMb: number;
  readonly firstSessionMs?: number | null;
  readonly threadCreateP50Ms?: number | null;
  readonly threadCreateP95Ms?: number | null;
  readonly sessionKb?: number | null;
  readonly promptAckP50Ms?: number | null;
  readonly promptFirstEventP50Ms?: number | null;
  readonly fanout1000P99Ms?: number | null;
  readonly replayMs?: number | null;
}

export interface Verdict {
  readonly what: string;
  readonly measured: number;
  readonly target: number;
  readonly direction: "at most" | "at least";
  readonly met: boolean;
  /** The reference daemon's figure, where the issue gives one. */
  readonly reference: number | null;
  /** What the figure is made of (the absolute values beside a ratio, the rate beside a lag). */
  readonly detail: string;
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
const mb = (n: number) => `${n.toFixed(1)} MB`;
const rate = (n: number) => `${Math.round(n).toLocaleString("en-US")}/s`;

/** One verdict per target whose figure was measured. */
export function verdicts(m: Measured): Verdict[] {
  type Row = [string, number | null, number, "at most" | "at least", number | null, string];
  const vsBare = (what: string, v: VsBare | null | undefined, target: number, unit: (n: number) => string): Row => [
    what,
    v == null ? null : v.svc / v.bare,
    target,
    "at most",
    null,
    v == null ? "" : `svc ${unit(v.svc)}, bare ${unit(v.bare)}`,
  ];
  const rows: Row[] = [
    vsBare("spawn → first /health 200 (median) ÷ bare", m.startupVsBare, TARGETS.startupVsBare, ms),
    vsBare("svc --version (median) ÷ bare print", m.versionVsBare, TARGETS.versionVsBare, ms),
    vsBare("idle RSS (median) ÷ bare", m.rssVsBare, TARGETS.rssVsBare, mb),
    ["spawn → first /health 200 (binary, median), ms", m.startupMs, TARGETS.startupMs, "at most", REFERENCE.startupMs, ""],
    ["idle RSS (binary, median), MB", m.idleRssMb, TARGETS.idleRssMb, "at most", REFERENCE.idleRssMb, ""],
    ["/health c=50, req/s", m.healthRps, TARGETS.healthRps, "at least", REFERENCE.healthRps, ""],
    ["/health c=50 ÷ bare Bun.serve c=50", m.healthVsBare, TARGETS.healthVsBare, "at least", null, ""],
    ["/capabilities c=50, req/s", m.capabilitiesRps, TARGETS.capabilitiesRps, "at least", REFERENCE.capabilitiesRps, ""],
    ["application bytes in the binary (svc − bare runtime), MB", m.payloadMb, TARGETS.payloadMb, "at most", null, ""],
    ["first POST /session, fresh daemon, bundled agent (median), ms", m.firstSessionMs ?? null, TARGETS.firstSessionMs, "at most", REFERENCE.firstSessionMs, ""],
    ["thread session create p50, ms", m.threadCreateP50Ms ?? null, TARGETS.threadCreateP50Ms, "at most", REFERENCE.threadCreateP50Ms, ""],
    ["thread session create p95, ms", m.threadCreateP95Ms ?? null, TARGETS.threadCreateP95Ms, "at most", REFERENCE.threadCreateP95Ms, ""],
    ["daemon RSS per extra live session, KB", m.sessionKb ?? null, TARGETS.sessionKb, "at most", REFERENCE.sessionKb, ""],
    ["prompt → 202 p50, ms", m.promptAckP50Ms ?? null, TARGETS.promptAckP50Ms, "at most", REFERENCE.promptAckP50Ms, ""],
    ["prompt → first SSE event p50, ms", m.promptFirstEventP50Ms ?? null, TARGETS.promptFirstEventP50Ms, "at most", REFERENCE.promptFirstEventP50Ms, ""],
    [
      "1000 subscribers, delivery lag p99, ms (qwen: cap 64)",
      m.fanout1000P99Ms ?? null,
      TARGETS.fanout1000P99Ms,
      "at most",
      null,
      [
        ...(m.fanout1000Rate == null ? [] : [`${rate(m.fanout1000Rate.eventsPerSecond)} events, ${rate(m.fanout1000Rate.framesPerSecond)} frames delivered`]),
        ...(m.fanout1000BareP99Ms == null ? [] : [`bare fan-out ${ms(m.fanout1000BareP99Ms)} (${(m.fanout1000P99Ms! / m.fanout1000BareP99Ms).toFixed(2)}×)`]),
      ].join("; "),
    ],
    ["replay of a full ring from Last-Event-ID: 0 (median), ms", m.replayMs ?? null, TARGETS.replayMs, "at most", REFERENCE.replayMs, ""],
    ["built-in agent spawn → initialize (median), ms", m.agentInitMs ?? null, TARGETS.agentInitMs, "at most", null, ""],
    ["built-in agent idle RSS (1 session, not prompted), MB", m.agentIdleRssMb ?? null, TARGETS.agentIdleRssMb, "at most", null, ""],
    ["daemon spawn → first session answered, built-in agent (median), ms", m.builtinFirstSessionMs ?? null, TARGETS.builtinFirstSessionMs, "at most", null, ""],
    [
      "journaling cost, share of event throughput",
      m.journalCost?.cost ?? null,
      TARGETS.journalCost,
      "at most",
      null,
      m.journalCost == null ? "" : `journal on ${rate(m.journalCost.onEventsPerSecond)}, off ${rate(m.journalCost.offEventsPerSecond)} events`,
    ],
  ];
  return rows
    .filter((row): row is [string, number, number, "at most" | "at least", number | null, string] => row[1] !== null)
    .map(([what, measured, target, direction, reference, detail]) => ({
      what,
      measured,
      target,
      direction,
      met: direction === "at most" ? measured <= target : measured >= target,
      reference,
      detail,
    }));
}
