/**
 * Throughput and latency. Every server is started once and stays up for the whole section; the load
 * runs go round-robin over the servers for `rounds` rounds, and each figure is the median over rounds.
 * Interleaving matters on a shared 2-core machine: a burst of outside load then hits svc and the
 * baseline alike instead of skewing the ratio between them. Round 1 of each run is preceded by a
 * discarded warm-up. Alongside the generator's figures, the server's own CPU time per request is
 * taken from /proc (steadier than req/s when neighbours compete for the cores). Each server's RSS is read once more at the end (memory after load, for context).
 */
import { cpuSeconds } from "./lib/cpu.ts";
import type { LoadGenerator, LoadResult } from "./lib/load-result.ts";
import { stopProcess } from "./lib/procs.ts";
import { residentMemory } from "./lib/rss.ts";
import { launch, type Launched, type ServerChoice } from "./lib/servers.ts";
import { median } from "./lib/stats.ts";

export interface LoadPlan extends ServerChoice {
  readonly runs: readonly { readonly path: string; readonly concurrency: number }[];
}

export interface ThroughputRow {
  readonly server: string;
  readonly path: string;
  readonly concurrency: number;
  /** Medians over rounds. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU time (user + system, all threads) per request; null where /proc is missing. */
  readonly cpuUsPerRequest: number | null;
  /** Per-round requests/s, to show the spread. */
  readonly roundsRps: readonly number[];
  /** Summed over rounds. */
  readonly errors: number;
}

export interface ThroughputResult {
  readonly rows: readonly ThroughputRow[];
  readonly rssAfterLoadMb: Readonly<Record<string, number | null>>;
}

export async function measureThroughput(
  plans: readonly LoadPlan[],
  generator: LoadGenerator,
  timing: { warmupSeconds: number; durationSeconds: number; rounds: number },
): Promise<ThroughputResult> {
  const servers: Launched[] = [];
  try {
    for (const plan of plans) servers.push(await launch(plan.spec()));
    const jobs = plans.flatMap((plan, i) =>
      plan.runs.map((run) => ({ ...run, plan, pid: servers[i]!.proc.pid, url: servers[i]!.url + run.path, results: [] as LoadResult[], cpuUs: [] as number[] })),
    );
    for (let round = 0; round < timing.rounds; round++)
      for (const job of jobs) {
        if (round === 0) await generator.run(job.url, job.concurrency, timing.warmupSeconds);
        const cpuBefore = cpuSeconds(job.pid);
        const result = await generator.run(job.url, job.concurrency, timing.durationSeconds);
        const cpuAfter = cpuSeconds(job.pid);
        job.results.push(result);
        if (cpuBefore !== null && cpuAfter !== null && result.requests > 0) job.cpuUs.push(((cpuAfter - cpuBefore) * 1e6) / result.requests);
      }
    const rows = jobs.map(
      (job): ThroughputRow => ({
        server: job.plan.name,
        path: job.path,
        concurrency: job.concurrency,
        requestsPerSecond: median(job.results.map((r) => r.requestsPerSecond)),
        p50Ms: median(job.results.map((r) => r.p50Ms)),
        p99Ms: median(job.results.map((r) => r.p99Ms)),
        cpuUsPerRequest: job.cpuUs.length === 0 ? null : median(job.cpuUs),
        roundsRps: job.results.map((r) => r.requestsPerSecond),
        errors: job.results.reduce((sum, r) => sum + r.errors, 0),
      }),
    );
    const rssAfterLoadMb = Object.fromEntries(plans.map((plan, i) => [plan.name, residentMemory(servers[i]!.proc.pid)?.rssMb ?? null]));
    return { rows, rssAfterLoadMb };
  } finally {
    await Promise.all(servers.map((server) => stopProcess(server.proc)));
  }
}
