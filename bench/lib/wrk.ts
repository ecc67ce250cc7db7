/**
 * `wrk` as the load generator, one thread (`-t1`): on this 2-core machine the server gets one core
 * and the generator the other; `-t2` would have wrk take cycles from the server it measures.
 * `parseWrk` reads its `--latency` report.
 */
import type { LoadGenerator, LoadResult } from "./load-result.ts";
import { spawnTracked } from "./procs.ts";

export const WRK_THREADS = 1;

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function durationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (m === null) throw new Error(`wrk: unreadable duration ${JSON.stringify(text)}`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** Parses `wrk --latency` output: requests/s, the 50%/99% latency lines, counts and errors. */
export function parseWrk(output: string): LoadResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const p50 = /^\s+50%\s+(\S+)/m.exec(output);
  const p99 = /^\s+99%\s+(\S+)/m.exec(output);
  const total = /(\d+) requests in /.exec(output);
  if (rps === null || p50 === null || p99 === null || total === null) throw new Error(`wrk: unexpected output:\n${output}`);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: durationMs(p50[1]!),
    p99Ms: durationMs(p99[1]!),
    requests: Number(total[1]),
    errors: non2xx + socketErrors,
  };
}

export function wrkGenerator(wrkPath: string): LoadGenerator {
  return {
    description: `wrk -t${WRK_THREADS} (${wrkPath})`,
    fallback: false,
    async run(url, concurrency, durationSeconds) {
      const cmd = [wrkPath, `-t${WRK_THREADS}`, `-c${concurrency}`, `-d${durationSeconds}s`, "--timeout", "5s", "--latency", url];
      const proc = spawnTracked(cmd, { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) throw new Error(`wrk exited ${code}: ${cmd.join(" ")}\n${out}${err}`);
      return parseWrk(out);
    },
  };
}
