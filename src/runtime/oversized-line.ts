/**
 * Who a line over the channel's frame bound belongs to, found without holding the line: its bytes
 * are fed through a small JSON scanner as they stream past (`stdout-guard.ts` drops them), which
 * keeps only the top-level `id`, `method`, whether the object has `result`/`error`, and
 * `params.sessionId`, wherever in the line they are. Pure: no I/O. Memory: a few hundred bytes,
 * whatever the line's length or nesting depth (only the two outer levels are tracked).
 *
 * Each kept value is at most MAX_CAPTURE_BYTES of JSON text; a longer one counts as absent, as does
 * anything in a line that is not a JSON object.
 */

/** Longest JSON text kept for a key or a value of interest. */
export const MAX_CAPTURE_BYTES = 256;

export interface LineOwner {
  /** The JSON-RPC id (number or string), when the line names one. */
  readonly id: number | string | null;
  readonly method: string | null;
  /** `params.sessionId`, when a string. */
  readonly sessionId: string | null;
  /** What the line is: an answer to the daemon, a request or a notification of the agent, or unknown. */
  readonly kind: "response" | "request" | "notification" | "unknown";
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isBlank = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const decoder = new TextDecoder();

/** The value of a kept JSON token, or undefined when it is not valid JSON. */
function parseToken(bytes: readonly number[]): unknown {
  try {
    return JSON.parse(decoder.decode(Uint8Array.from(bytes)));
  } catch {
    return undefined;
  }
}

export class LineOwnerScanner {
  /** Open containers; their kinds are kept for the two outer levels only. */
  private depth = 0;
  private readonly kinds: Array<"object" | "array"> = [];
  /** The innermost tracked object expects a key next (after `{` or `,`). */
  private expectKey = false;
  /** The key whose value is being read, at depth 1 and 2. */
  private readonly keys: Array<string | null> = [null, null];
  private inString = false;
  private escaped = false;
  /** The token being kept, and what it is: a key, or the value of a key of interest. */
  private capture: number[] | null = null;
  private captureRole: "key" | "value" | null = null;
  private captureOverflow = false;
  private notObject = false;
  private started = false;
  private id: number | string | null = null;
  private method: string | null = null;
  private sessionId: string | null = null;
  private answer = false;

  /** Feeds the next bytes of the line (without its newline). */
  push(bytes: Uint8Array): void {
    if (this.notObject) return;
    const n = bytes.length;
    for (let i = 0; i < n; i++) {
      if (this.inString) {
        // The common case, a long string nobody keeps, runs without per-byte bookkeeping.
        if (this.capture === null && !this.escaped) {
          while (i < n && bytes[i] !== QUOTE && bytes[i] !== BACKSLASH) i++;
          if (i === n) return;
        }
        const b = bytes[i]!;
        this.keep(b);
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.endString();
        continue;
      }
      const b = bytes[i]!;
      if (!this.started) {
        if (isBlank(b)) continue;
        this.started = true;
        if (b !== 0x7b) {
          this.notObject = true;
          return;
        }
      }
      if (this.capture !== null && this.captureRole === "value" && (b === 0x2c || b === 0x7d || b === 0x5d || isBlank(b))) this.endScalar();
      switch (b) {
        case QUOTE:
          this.startString();
          break;
        case 0x7b: // {
        case 0x5b: // [
          this.depth++;
          if (this.depth <= 2) {
            this.kinds[this.depth - 1] = b === 0x7b ? "object" : "array";
            this.expectKey = b === 0x7b;
            if (this.depth === 2) this.keys[1] = null;
          }
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.depth--;
          this.expectKey = false;
          break;
        case 0x3a: // :
          if (this.depth <= 2) this.expectKey = false;
          break;
        case 0x2c: // ,
          if (this.depth >= 1 && this.depth <= 2 && this.kinds[this.depth - 1] === "object") {
            this.expectKey = true;
            this.keys[this.depth - 1] = null;
          }
          break;
        default:
          // The first byte of a number, true, false or null: kept when it is the top-level id.
          if (!isBlank(b) && this.capture === null && this.depth === 1 && this.keys[0] === "id") this.startCapture("value", b);
          else if (this.capture !== null) this.keep(b);
      }
    }
  }

  /** What the scanned line was, from what it showed. */
  owner(): LineOwner {
    if (this.capture !== null && this.captureRole === "value" && !this.inString) this.endScalar();
    const kind = this.method !== null ? (this.id !== null ? "request" : "notification") : this.id !== null && this.answer ? "response" : "unknown";
    return { id: this.id, method: this.method, sessionId: this.sessionId, kind };
  }

  /** Whether the string starting here is a key, or a value of interest, of the two outer levels. */
  private startString(): void {
    this.inString = true;
    const d = this.depth;
    if (d < 1 || d > 2 || this.kinds[d - 1] !== "object") return;
    if (this.expectKey) return this.startCapture("key", QUOTE);
    const interesting = d === 1 ? this.keys[0] === "id" || this.keys[0] === "method" : this.keys[0] === "params" && this.keys[1] === "sessionId";
    if (interesting) this.startCapture("value", QUOTE);
  }

  private startCapture(role: "key" | "value", first: number): void {
    this.capture = [first];
    this.captureRole = role;
    this.captureOverflow = false;
  }

  private keep(b: number): void {
    if (this.capture === null) return;
    if (this.capture.length < MAX_CAPTURE_BYTES) this.capture.push(b);
    else this.captureOverflow = true;
  }

  private endString(): void {
    this.inString = false;
    if (this.capture === null) return;
    const value = this.captureOverflow ? undefined : parseToken(this.capture);
    const role = this.captureRole;
    this.capture = null;
    this.captureRole = null;
    if (typeof value !== "string") return;
    if (role === "key") {
      this.keys[this.depth - 1] = value;
      if (this.depth === 1 && (value === "result" || value === "error")) this.answer = true;
    } else this.assign(value);
  }

  private endScalar(): void {
    const value = this.captureOverflow || this.capture === null ? undefined : parseToken(this.capture);
    this.capture = null;
    this.captureRole = null;
    if (typeof value === "number") this.assign(value);
  }

  private assign(value: string | number): void {
    if (this.depth === 1 && this.keys[0] === "id") this.id = value;
    else if (this.depth === 1 && this.keys[0] === "method" && typeof value === "string") this.method = value;
    else if (this.depth === 2 && typeof value === "string") this.sessionId = value;
  }
}
