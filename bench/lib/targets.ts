/**
 * The issues' targets (foundation, sessions, events), and the reference daemon's figures (`qwen
 * serve` 0.24.4) for scale. Printed next to each measurement; never used to fail a run.
 */
export const TARGETS = {
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
  /** Compiled binary size, MB (at most). */
  binaryMb: 110,
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

/** The measured figures the targets speak of; a section that did not run leaves its figures null (or out). */
export interface Measured {
  readonly startupMs: number | null;
  readonly idleRssMb: number | null;
  readonly healthRps: number | null;
  readonly healthVsBare: number | null;
  readonly capabilitiesRps: number | null;
  readonly binaryMb: number;
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
}

/** One verdict per target whose figure was measured. */
export function verdicts(m: Measured): Verdict[] {
  const rows: [string, number | null, number, "at most" | "at least", number | null][] = [
    ["spawn → first /health 200 (binary, median), ms", m.startupMs, TARGETS.startupMs, "at most", REFERENCE.startupMs],
    ["idle RSS (binary, median), MB", m.idleRssMb, TARGETS.idleRssMb, "at most", REFERENCE.idleRssMb],
    ["/health c=50, req/s", m.healthRps, TARGETS.healthRps, "at least", REFERENCE.healthRps],
    ["/health c=50 ÷ bare Bun.serve c=50", m.healthVsBare, TARGETS.healthVsBare, "at least", null],
    ["/capabilities c=50, req/s", m.capabilitiesRps, TARGETS.capabilitiesRps, "at least", REFERENCE.capabilitiesRps],
    ["binary size, MB", m.binaryMb, TARGETS.binaryMb, "at most", null],
    ["first POST /session, fresh daemon, bundled agent (median), ms", m.firstSessionMs ?? null, TARGETS.firstSessionMs, "at most", REFERENCE.firstSessionMs],
    ["thread session create p50, ms", m.threadCreateP50Ms ?? null, TARGETS.threadCreateP50Ms, "at most", REFERENCE.threadCreateP50Ms],
    ["thread session create p95, ms", m.threadCreateP95Ms ?? null, TARGETS.threadCreateP95Ms, "at most", REFERENCE.threadCreateP95Ms],
    ["daemon RSS per extra live session, KB", m.sessionKb ?? null, TARGETS.sessionKb, "at most", REFERENCE.sessionKb],
    ["prompt → 202 p50, ms", m.promptAckP50Ms ?? null, TARGETS.promptAckP50Ms, "at most", REFERENCE.promptAckP50Ms],
    ["prompt → first SSE event p50, ms", m.promptFirstEventP50Ms ?? null, TARGETS.promptFirstEventP50Ms, "at most", REFERENCE.promptFirstEventP50Ms],
    ["1000 subscribers, delivery lag p99, ms (qwen: cap 64)", m.fanout1000P99Ms ?? null, TARGETS.fanout1000P99Ms, "at most", null],
    ["replay of a full ring from Last-Event-ID: 0 (median), ms", m.replayMs ?? null, TARGETS.replayMs, "at most", REFERENCE.replayMs],
  ];
  return rows
    .filter((row): row is [string, number, number, "at most" | "at least", number | null] => row[1] !== null)
    .map(([what, measured, target, direction, reference]) => ({
      what,
      measured,
      target,
      direction,
      met: direction === "at most" ? measured <= target : measured >= target,
      reference,
    }));
}
