/**
 * Reads a child's stderr line by line: each line goes to the log, and the last MAX_LINES lines
 * (each cut at MAX_LINE_CHARS) are kept for error reports. A line that never ends is cut at
 * MAX_LINE_CHARS too, so a child cannot grow our memory through stderr. Terminal escape sequences
 * (colours, cursor moves, titles) are stripped from every line; the logger escapes any control
 * character left. Known secrets (`stderr-secrets.ts`) are replaced in every line before it is logged
 * or kept, and before the line is cut: a line is read up to MAX_LINE_CHARS plus the longest secret,
 * so a secret that starts before the cut is still whole when it is replaced; of a line longer than
 * that, a start of a secret left dangling at the end of what was read (the escape sequences taken
 * out may have pulled it before the cut) is dropped as well.
 */
import { redactSecrets } from "../logging/redact.ts";
import { stripAnsi } from "../logging/terminal-text.ts";

export const MAX_LINES = 50;
export const MAX_LINE_CHARS = 2000;

export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";
  /** The current line went past `readChars` and was cut. */
  private overflowed = false;
  /** How much of a line is read: MAX_LINE_CHARS plus the longest secret (the line's bound in memory). */
  private readonly readChars: number;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly secrets: readonly string[],
  ) {
    this.readChars = MAX_LINE_CHARS + Math.max(0, ...secrets.map((s) => s.length));
  }

  /** Feeds a decoded chunk. */
  push(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) break;
      this.take(text.slice(start, nl));
      this.emit();
      start = nl + 1;
    }
    if (start < text.length) this.take(text.slice(start));
  }

  /** Appends to the current line, up to `readChars`. */
  private take(piece: string): void {
    const room = this.readChars - this.partial.length;
    if (piece.length > room) this.overflowed = true;
    if (room > 0) this.partial += piece.slice(0, room);
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
    let line = redactSecrets(stripAnsi(this.partial.replace(/\r$/, "")), this.secrets);
    // The read stopped inside the line: its last characters may be the start of a secret.
    if (this.overflowed) line = line.slice(0, line.length - danglingSecretStart(line, this.secrets));
    line = line.slice(0, MAX_LINE_CHARS);
    this.partial = "";
    this.overflowed = false;
    this.lines.push(line);
    if (this.lines.length > MAX_LINES) this.lines.shift();
    this.onLine(line);
  }
}

/** How many of `text`'s last characters are the start of a secret (the longest such start; 0 if none). */
function danglingSecretStart(text: string, secrets: readonly string[]): number {
  let longest = 0;
  for (const secret of secrets)
    for (let k = Math.min(secret.length - 1, text.length); k > longest; k--)
      if (text.endsWith(secret.slice(0, k))) {
        longest = k;
        break;
      }
  return longest;
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
