/**
 * An incremental Server-Sent Events parser (WHATWG event-stream rules: LF, CRLF or CR line ends,
 * `:` comments, `event`/`data`/`id`/`retry` fields, a blank line dispatches).
 *
 * Bound: a frame (its data lines plus the partial line being read) may hold at most
 * `maxFrameChars` characters. Past that the parser drops the frame: it discards input up to the
 * frame's blank line, never buffering it, and counts it in `droppedFrames` so the reader can
 * recover what was lost (the subscription resyncs through the journal).
 */

export interface SseFrame {
  event: string;
  data: string;
  /** The frame's `id:` line, if it had one. */
  id: string | undefined;
}

/** Default frame bound: 8 MiB of characters, the daemon's per-subscription replay budget. */
export const MAX_FRAME_CHARS = 8 * 1024 * 1024;

export class SseParser {
  private partial = "";
  private event = "";
  private data: string[] = [];
  private dataChars = 0;
  private id: string | undefined;
  /** Inside a frame that outgrew the bound: skip lines until its blank line. */
  private skipping = false;
  /** The line being read was discarded (overflow): its end is not a blank line. */
  private droppedLine = false;
  /** A CR ended the last chunk: a LF opening the next one belongs to it. */
  private pendingCr = false;
  /** Frames dropped for exceeding the bound since the parser began. */
  droppedFrames = 0;

  private readonly maxFrameChars: number;

  constructor(maxFrameChars = MAX_FRAME_CHARS) {
    this.maxFrameChars = maxFrameChars;
  }

  /** Feeds decoded text; returns the frames it completed. */
  push(text: string): SseFrame[] {
    const frames: SseFrame[] = [];
    let start = 0;
    if (this.pendingCr && text.startsWith("\n")) start = 1;
    this.pendingCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.partial + text.slice(start, i);
      this.partial = "";
      if (c === 13) {
        if (i + 1 === text.length) this.pendingCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      const dropped = this.droppedLine;
      this.droppedLine = false;
      const frame = dropped ? null : this.line(line);
      if (frame) frames.push(frame);
    }
    const rest = text.slice(start);
    if (this.skipping) {
      if (rest !== "") this.droppedLine = true;
    } else if (this.dataChars + this.partial.length + rest.length > this.maxFrameChars) {
      this.overflow();
      this.droppedLine = true;
    } else this.partial += rest;
    return frames;
  }

  private line(line: string): SseFrame | null {
    if (line === "") return this.dispatch();
    if (this.skipping || line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "data") {
      if (this.dataChars + value.length > this.maxFrameChars) this.overflow();
      else {
        this.data.push(value);
        this.dataChars += value.length + 1;
      }
    }
    return null;
  }

  private overflow(): void {
    this.skipping = true;
    this.partial = "";
    this.data = [];
    this.dataChars = 0;
  }

  private dispatch(): SseFrame | null {
    const skipped = this.skipping;
    const frame: SseFrame = { event: this.event || "message", data: this.data.join("\n"), id: this.id };
    this.event = "";
    this.data = [];
    this.dataChars = 0;
    this.id = undefined;
    this.skipping = false;
    if (skipped) {
      this.droppedFrames++;
      return null;
    }
    return frame.data === "" && frame.id === undefined ? null : frame;
  }
}
