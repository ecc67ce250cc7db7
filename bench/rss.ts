/**
 * Idle RSS: start a server, send it a few requests (so lazily built routes and JIT tiers are in),
 * let it settle, then read VmRSS. Median over runs, runs interleaved across servers.
 */
import { stopProcess } from "./lib/procs.ts";
import { residentMemory, type Resident } from "./lib/rss.ts";
import { launch, type ServerChoice, type ServerSpec } from "./lib/servers.ts";
import { median } from "./lib/stats.ts";

/** Requests sent to each of /health and /capabilities before the reading. */
const WARM_REQUESTS = 20;

export interface RssResult {
  readonly name: string;
  readonly runs: number;
  /** Medians of VmRSS and of its anonymous and file-backed parts. */
  readonly medianMb: number;
  readonly anonMedianMb: number;
  readonly fileMedianMb: number;
  readonly samplesMb: readonly number[];
}

async function idleRssOnce(spec: ServerSpec, settleMs: number): Promise<Resident> {
  const server = await launch(spec);
  try {
    for (let i = 0; i < WARM_REQUESTS; i++)
      for (const path of ["/health", "/capabilities"]) {
        const response = await fetch(server.url + path);
        await response.arrayBuffer();
      }
    await Bun.sleep(settleMs);
    const memory = residentMemory(server.proc.pid);
    if (memory === null) throw new Error("cannot read VmRSS from /proc (not Linux?)");
    return memory;
  } finally {
    await stopProcess(server.proc);
  }
}

export async function measureRss(servers: readonly ServerChoice[], runs: number, settleMs: number): Promise<RssResult[]> {
  const samples = servers.map((): Resident[] => []);
  for (let run = 0; run < runs; run++)
    for (const [i, server] of servers.entries()) samples[i]!.push(await idleRssOnce(server.spec(), settleMs));
  return servers.map((server, i) => {
    const own = samples[i]!;
    return {
      name: server.name,
      runs,
      medianMb: median(own.map((m) => m.rssMb)),
      anonMedianMb: median(own.map((m) => m.anonMb)),
      fileMedianMb: median(own.map((m) => m.fileMb)),
      samplesMb: own.map((m) => m.rssMb),
    };
  });
}
