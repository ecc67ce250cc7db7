/**
 * The targets for the foundation, and the reference daemon's figures (`qwen serve` 0.24.4)
 * for scale. Printed next to each measurement; never used to fail a run.
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
} as const;

export const REFERENCE = {
  name: "qwen serve 0.24.4",
  startupMs: 1662,
  idleRssMb: 208,
  healthRps: 3_900,
  capabilitiesRps: 2_300,
} as const;

/** The measured figures the targets speak of; a section that did not run leaves its figures null. */
export interface Measured {
  readonly startupMs: number | null;
  readonly idleRssMb: number | null;
  readonly healthRps: number | null;
  readonly healthVsBare: number | null;
  readonly capabilitiesRps: number | null;
  readonly binaryMb: number;
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
