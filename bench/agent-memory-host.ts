/**
 * The daemon (sources) in a process of its own for `agent-memory.ts`, with one addition the real
 * daemon has no need for: on SIGUSR2 it runs a full, synchronous GC and prints its memory as a JSON
 * line (`{"rssBytes","heapBytes"}`; heapBytes is JSC's heap size after that GC, i.e. live objects).
 * `bun bench/agent-memory-host.ts <svc serve flags…>` reads its configuration as `svc serve` does
 * (flags and env), prints `{"url"}` once listening, and stops the daemon (and its agent child) on
 * SIGTERM.
 */
import { heapStats } from "bun:jsc";
import { join } from "node:path";
import { resolveConfig } from "../src/config/config.ts";
import { createDaemon } from "../src/daemon.ts";
import { Logger } from "../src/logging/logger.ts";

/** How long the daemon's own stop may take before the host exits anyway. */
const STOP_MS = 5000;

const config = resolveConfig({ args: Bun.argv.slice(2), env: process.env, cwd: process.cwd(), version: "bench", selfEntry: join(import.meta.dir, "..", "src", "main.ts") });
const daemon = createDaemon(config, { logger: new Logger(config.log.level, config.log.format, { write: (chunk) => void process.stderr.write(chunk) }) });
console.log(JSON.stringify({ url: daemon.url }));

process.on("SIGUSR2", () => {
  Bun.gc(true);
  console.log(JSON.stringify({ rssBytes: process.memoryUsage().rss, heapBytes: heapStats().heapSize }));
});
process.on("SIGTERM", () => void daemon.stop(STOP_MS).finally(() => process.exit(0)));
