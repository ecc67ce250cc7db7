/** Picks the load generator: `wrk` when it is on PATH, else the fetch-loop fallback. */
import { fetchLoadGenerator } from "./fetch-load.ts";
import type { LoadGenerator } from "./load-result.ts";
import { wrkGenerator } from "./wrk.ts";

export function pickLoadGenerator(options: { forceFallback: boolean }): LoadGenerator {
  if (options.forceFallback) return fetchLoadGenerator("--fallback-load");
  const wrk = Bun.which("wrk");
  return wrk === null ? fetchLoadGenerator("wrk not on PATH") : wrkGenerator(wrk);
}
