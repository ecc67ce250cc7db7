/**
 * Fallback load worker: `bun fetch-load-worker.ts <url> <concurrency> <durationMs>`. Runs
 * `concurrency` loops of sequential keep-alive `fetch`es for the duration, then prints one JSON
 * `LoadResult` on stdout. Bounded by the duration; a failed request counts as an error.
 */
import type { LoadResult } from "./load-result.ts";
import { percentile } from "./stats.ts";

const [url, concurrencyArg, durationArg] = process.argv.slice(2);
if (url === undefined || concurrencyArg === undefined || durationArg === undefined) {
  process.stderr.write("usage: fetch-load-worker.ts <url> <concurrency> <durationMs>\n");
  process.exit(2);
}

const latencies: number[] = [];
let errors = 0;
const started = performance.now();
const deadline = started + Number(durationArg);

async function loop(): Promise<void> {
  while (performance.now() < deadline) {
    const t = performance.now();
    try {
      const response = await fetch(url!);
      await response.arrayBuffer();
      if (!response.ok) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - t);
  }
}

await Promise.all(Array.from({ length: Number(concurrencyArg) }, loop));
const elapsedSeconds = (performance.now() - started) / 1000;
const result: LoadResult = {
  requestsPerSecond: latencies.length / elapsedSeconds,
  p50Ms: percentile(latencies, 50),
  p99Ms: percentile(latencies, 99),
  requests: latencies.length,
  errors,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
