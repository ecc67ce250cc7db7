/**
 * Leveled stderr logger, `text` (`<time> <LEVEL> <msg> key=value…`) or `json` (one object per line).
 *
 * Lines are safe for a terminal: control characters in messages and values (an agent's name, its
 * error text) are escaped, in both formats (see `terminal-text.ts`).
 *
 * Writes never block the daemon: lines go to an output that may be slow or full (a launcher that never
 * drains our stderr pipe). While the output is busy, lines wait in a buffer capped at
 * MAX_BUFFERED_BYTES; past that they are dropped and counted, and a `log lines dropped` line is
 * written once the output drains.
 */
import type { LogFormat, LogLevel } from "../config/config.ts";
import { escapeControls, hasControls, terminalSafeJson } from "./terminal-text.ts";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const MAX_BUFFERED_BYTES = 1 << 20;

export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Where finished lines go. `write` returns a promise while the output is still busy. */
export interface LogOutput {
  write(chunk: string): void | Promise<unknown>;
}

export function stderrOutput(): LogOutput {
  const sink = Bun.stderr.writer();
  return {
    write(chunk) {
      sink.write(chunk);
      const flushed = sink.flush();
      return flushed instanceof Promise ? flushed : undefined;
    },
  };
}

export class Logger {
  private readonly min: number;
  private busy = false;
  private scheduled = false;
  private stampMs = -1;
  private stamp = "";
  private buffered: string[] = [];
  private bufferedBytes = 0;
  private dropped = 0;

  constructor(
    level: LogLevel,
    private readonly format: LogFormat,
    private readonly output: LogOutput,
  ) {
    this.min = LEVELS[level];
  }

  enabled(level: LogLevel): boolean {
    return LEVELS[level] >= this.min;
  }

  debug(msg: string, fields?: LogFields): void {
    if (this.min <= LEVELS.debug) this.emit("debug", msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    if (this.min <= LEVELS.info) this.emit("info", msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    if (this.min <= LEVELS.warn) this.emit("warn", msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    if (this.min <= LEVELS.error) this.emit("error", msg, fields);
  }

  /**
   * The access-log line: `GET /path 200 1.2ms` in text, separate fields in JSON. It is on every
   * request's path, so the text form skips the generic formatter (an HTTP request target cannot
   * hold white space or line breaks, so nothing needs quoting).
   */
  request(method: string, path: string, status: number, ms: number): void {
    if (this.min > LEVELS.info) return;
    const duration = ms.toFixed(1);
    if (this.format === "json") this.emit("info", "request", { method, path, status, ms: Number(duration) });
    else this.push(`${this.now()} INFO ${method} ${path} ${status} ${duration}ms\n`);
  }

  /** ISO timestamp, formatted once per millisecond. */
  private now(): string {
    const ms = Date.now();
    if (ms !== this.stampMs) {
      this.stampMs = ms;
      this.stamp = new Date(ms).toISOString();
    }
    return this.stamp;
  }

  private emit(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    const time = this.now();
    let line: string;
    if (this.format === "json") {
      line = terminalSafeJson(JSON.stringify({ time, level, msg, ...fields }));
    } else {
      line = `${time} ${level.toUpperCase()} ${escapeControls(msg)}`;
      if (fields)
        for (const key in fields) {
          const value = fields[key];
          if (value === undefined) continue;
          const text = String(value);
          line += ` ${escapeControls(key)}=${/[\s"=]/.test(text) || text === "" || hasControls(text) ? terminalSafeJson(JSON.stringify(text)) : text}`;
        }
    }
    this.push(line.replace(/[\r\n]/g, " ") + "\n");
  }

  private push(line: string): void {
    if (this.bufferedBytes + line.length > MAX_BUFFERED_BYTES) {
      this.dropped++;
      return;
    }
    this.buffered.push(line);
    this.bufferedBytes += line.length;
    if (!this.busy && !this.scheduled) {
      // Batch every line logged in this turn of the event loop into one write.
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        if (!this.busy) this.drain();
      });
    }
  }

  /** Writes whatever is buffered now; resolves when the output has taken it (or after `timeoutMs`). */
  async flush(timeoutMs = 1000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    if (!this.busy) this.drain();
    while ((this.busy || this.buffered.length > 0) && Date.now() < deadline) {
      await Bun.sleep(5);
      if (!this.busy) this.drain();
    }
  }

  private drain(): void {
    if (this.buffered.length === 0 && this.dropped === 0) return;
    let chunk = this.buffered.join("");
    this.buffered = [];
    this.bufferedBytes = 0;
    if (this.dropped > 0) {
      chunk += `${new Date().toISOString()} WARN log lines dropped count=${this.dropped}\n`;
      this.dropped = 0;
    }
    let pending: void | Promise<unknown>;
    try {
      pending = this.output.write(chunk);
    } catch {
      return; // an output that throws (closed stderr) must not take the daemon down
    }
    if (pending) {
      this.busy = true;
      pending.then(
        () => {
          this.busy = false;
          this.drain();
        },
        () => {
          this.busy = false;
        },
      );
    }
  }
}
