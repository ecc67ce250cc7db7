/**
 * The fallback load generator when `wrk` is not on PATH: `fetch-load-worker.ts` in its own Bun
 * process (so it does not share an event loop with the bench), reporting one JSON line. It is far
 * heavier per request than wrk, so its figures understate the server; the report says so.
 */
import { join } from "node:path";
import type { LoadGenerator, LoadResult } from "./load-result.ts";
import { spawnTracked } from "./procs.ts";

const WORKER = join(import.meta.dir, "fetch-load-worker.ts");

/** `reason` says why the fallback runs (wrk missing, or asked for), for the report. */
export function fetchLoadGenerator(reason: string): LoadGenerator {
  return {
    description: `fallback (${reason}): keep-alive fetch loops in a separate Bun process; figures understate the server`,
    fallback: true,
    async run(url, concurrency, durationSeconds) {
      const cmd = [process.execPath, WORKER, url, String(concurrency), String(durationSeconds * 1000)];
      const proc = spawnTracked(cmd, { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) throw new Error(`load worker exited ${code}: ${err}`);
      return JSON.parse(out) as LoadResult;
    },
  };
}
