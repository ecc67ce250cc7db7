/**
 * Reads a child's stderr line by line: each line goes to the log, and the last MAX_LINES lines
 * (each cut at MAX_LINE_CHARS) are kept for error reports. A line that never ends is cut at
 * MAX_LINE_CHARS too, so a child cannot grow our memory through stderr. Terminal escape sequences
 * (colours, cursor moves, titles) are stripped from every line; the logger escapes any control
 * character left. Known secrets (`stderr-secrets.ts`) are replaced in every line before it is logged
 * or kept.
 */
import { redactSecrets } from "../logging/redact.ts";
import { stripAnsi } from "../logging/terminal-text.ts";

export const MAX_LINES = 50;
export const MAX_LINE_CHARS = 2000;

export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly secrets: readonly string[],
  ) {}

  /** Feeds a decoded chunk. */
  push(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) break;
      this.partial += text.slice(start, Math.min(nl, start + MAX_LINE_CHARS));
      this.emit();
      start = nl + 1;
    }
    if (start < text.length && this.partial.length < MAX_LINE_CHARS) this.partial += text.slice(start, start + MAX_LINE_CHARS - this.partial.length);
  }

  /** Flushes an unterminated last line (at EOF). */
  end(): void {
    if (this.partial !== "") this.emit();
  }

  /** The retained tail, oldest first. */
  tail(): readonly string[] {
    return this.lines;
  }

  private emit(): void {
    const line = redactSecrets(stripAnsi(this.partial.replace(/\r$/, "")), this.secrets).slice(0, MAX_LINE_CHARS);
    this.partial = "";
    this.lines.push(line);
    if (this.lines.length > MAX_LINES) this.lines.shift();
    this.onLine(line);
  }
}

/** Pumps a stderr stream into a tail until EOF. */
export async function pumpStderr(stream: ReadableStream<Uint8Array>, tail: StderrTail): Promise<void> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      tail.push(decoder.decode(value, { stream: true }));
    }
  } catch {
    // a broken pipe ends the tail like EOF
  } finally {
    tail.end();
  }
}
