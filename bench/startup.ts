/**
 * Cold start: time from just before the spawn to the first `GET /health` 200, per server. Runs are
 * interleaved across servers so drift (page cache, CPU frequency) spreads evenly; one untimed run per
 * server comes first so every variant starts with its executable in the page cache.
 */
import { cpuSeconds } from "./lib/cpu.ts";
import { percentile, median } from "./lib/stats.ts";
import { stopProcess } from "./lib/procs.ts";
import { launch, type ServerChoice, type ServerSpec } from "./lib/servers.ts";

/** Give up on a server whose listener does not answer within this long after it printed its URL. */
const FIRST_OK_TIMEOUT_MS = 5000;
/** Pause between refused /health attempts. */
const POLL_INTERVAL_MS = 1;

export interface StartupResult {
  readonly name: string;
  readonly runs: number;
  /** Spawn → first /health 200. */
  readonly medianMs: number;
  readonly p90Ms: number;
  /** Spawn → listening line on stdout. */
  readonly listeningMedianMs: number;
  /** CPU time the server had used when its first 200 arrived (steadier than wall time under load). */
  readonly cpuMedianMs: number | null;
}

interface Sample {
  readonly firstOkMs: number;
  readonly listeningMs: number;
  readonly cpuMs: number | null;
}

async function bootOnce(spec: ServerSpec): Promise<Sample> {
  const server = await launch(spec);
  try {
    const deadline = performance.now() + FIRST_OK_TIMEOUT_MS;
    for (;;) {
      const ok = await fetch(`${server.url}/health`).then(
        (response) => response.arrayBuffer().then(() => response.status === 200),
        () => false,
      );
      if (ok) {
        const firstOkMs = performance.now() - server.spawnedAt;
        const cpu = cpuSeconds(server.proc.pid);
        return { firstOkMs, listeningMs: server.listeningAt - server.spawnedAt, cpuMs: cpu === null ? null : cpu * 1000 };
      }
      if (performance.now() > deadline) throw new Error(`${spec.name}: /health not 200 within ${FIRST_OK_TIMEOUT_MS} ms of listening`);
      await Bun.sleep(POLL_INTERVAL_MS);
    }
  } finally {
    await stopProcess(server.proc);
  }
}

export async function measureStartup(servers: readonly ServerChoice[], runs: number): Promise<StartupResult[]> {
  for (const server of servers) await bootOnce(server.spec());
  const samples = servers.map((): Sample[] => []);
  for (let run = 0; run < runs; run++)
    for (const [i, server] of servers.entries()) samples[i]!.push(await bootOnce(server.spec()));
  return servers.map((server, i) => {
    const firstOk = samples[i]!.map((s) => s.firstOkMs);
    const cpu = samples[i]!.flatMap((s) => (s.cpuMs === null ? [] : [s.cpuMs]));
    return {
      name: server.name,
      runs,
      medianMs: median(firstOk),
      p90Ms: percentile(firstOk, 90),
      listeningMedianMs: median(samples[i]!.map((s) => s.listeningMs)),
      cpuMedianMs: cpu.length === 0 ? null : median(cpu),
    };
  });
}
