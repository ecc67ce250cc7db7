/**
 * Routes the daemon process's `console` output into the logger. Libraries write there on their
 * own (the ACP SDK logs "Got response to unknown request" with the agent-chosen id), and whatever
 * reaches stderr around the logger breaks `--log-format json`, may carry known secrets and may hold
 * terminal escape sequences an agent chose. Each call becomes one `warn` line (`console output`,
 * with the console method and the text): the arguments formatted as console would, known secrets
 * replaced, cut at MAX_CONSOLE_CHARS; the logger escapes control characters. Installed by
 * `svc serve` only: an embedding process keeps its own console.
 */
import type { Logger } from "./logger.ts";
import { redactSecrets } from "./redact.ts";

/** Longest text logged for one console call (cut, with `…`). */
export const MAX_CONSOLE_CHARS = 2000;

const METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/** The console methods replaced. */
export type ConsoleLike = Record<(typeof METHODS)[number], (...args: unknown[]) => void>;

function format(args: readonly unknown[]): string {
  return args.map((arg) => (typeof arg === "string" ? arg : Bun.inspect(arg, { depth: 4 }))).join(" ");
}

export function routeConsoleToLogger(target: ConsoleLike, logger: Logger, secrets: readonly string[]): void {
  for (const method of METHODS)
    target[method] = (...args: unknown[]) => {
      try {
        const text = redactSecrets(format(args), secrets);
        logger.warn("console output", { console: method, text: text.length > MAX_CONSOLE_CHARS ? `${text.slice(0, MAX_CONSOLE_CHARS)}…` : text });
      } catch {
        // logging must not raise a fault of its own
      }
    };
}
