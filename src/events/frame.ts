/**
 * Event envelopes and their SSE encoding. An envelope is serialized and UTF-8 encoded once at
 * publish time into a complete SSE frame (`id:`/`event:`/`data:` lines), so fan-out and replay
 * hand the same bytes to every subscriber. Data that JSON cannot carry (nesting deeper than the
 * serializer's stack, a cycle, a BigInt, a throwing `toJSON`) is refused with `EventEncodeError`.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export interface EventEnvelope {
  /** Per-session monotonic id from 1; absent on synthetic frames, which never consume an id. */
  readonly id?: number;
  readonly v: 1;
  readonly type: string;
  readonly data: unknown;
  readonly promptId?: string;
  readonly originatorClientId?: string;
  readonly _meta: { readonly serverTimestamp: number };
}

export interface Frame {
  readonly id: number | undefined;
  readonly type: string;
  /** The full SSE frame, UTF-8, ending with a blank line. Shared by every subscriber: never mutate. */
  readonly encoded: Uint8Array;
  /** The same frame as text (decoded on demand). */
  readonly text: string;
  /** Size of `encoded`, for byte budgets. */
  readonly bytes: number;
  /** The envelope, parsed back from the frame on demand (frames keep only their bytes). */
  readonly envelope: EventEnvelope;
  /** The envelope's one-line JSON, exactly as on the `data:` line (decoded on demand). */
  readonly json: string;
}

export interface EnvelopeFields {
  readonly promptId?: string;
  readonly originatorClientId?: string;
}

/**
 * An event whose data cannot be serialized. Nothing was published: no id was used, no subscriber
 * saw it. `reason` is `too_deep` (the serializer ran out of stack) or `not_json` (a cycle, a
 * BigInt, a throwing `toJSON`).
 */
export class EventEncodeError extends DaemonError {
  override readonly name = "EventEncodeError";
  constructor(
    readonly eventType: string,
    readonly reason: "too_deep" | "not_json",
    cause: unknown,
  ) {
    super(422, "event_not_encodable", `event ${eventType} cannot be encoded as JSON (${reason})`, { eventType, reason });
    this.cause = cause;
  }
}

const SAFE_FIELD = /^[^\r\n]*$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Builds the envelope and its SSE frame. `type` must be a single-line token. */
export function encodeFrame(id: number | undefined, type: string, data: unknown, fields: EnvelopeFields = {}, now = Date.now()): Frame {
  if (!SAFE_FIELD.test(type) || type === "") throw new Error(`invalid event type ${JSON.stringify(type)}`);
  const envelope: EventEnvelope = {
    ...(id === undefined ? {} : { id }),
    v: 1,
    type,
    data,
    ...(fields.promptId === undefined ? {} : { promptId: fields.promptId }),
    ...(fields.originatorClientId === undefined ? {} : { originatorClientId: fields.originatorClientId }),
    _meta: { serverTimestamp: now },
  };
  // JSON.stringify never emits raw CR/LF (they are escaped inside strings), so `data:` stays one line.
  let json: string;
  try {
    json = JSON.stringify(envelope);
  } catch (error) {
    throw new EventEncodeError(type, error instanceof RangeError ? "too_deep" : "not_json", error);
  }
  const encoded = encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}event: ${type}\ndata: ${json}\n\n`);
  return {
    id,
    type,
    encoded,
    get text() {
      return decoder.decode(encoded);
    },
    bytes: encoded.byteLength,
    get envelope() {
      return JSON.parse(this.json) as EventEnvelope;
    },
    get json() {
      const text = decoder.decode(encoded);
      // The frame ends with the data line and a blank line ("\n\n").
      return text.slice(text.indexOf("\ndata: ") + 7, -2);
    },
  };
}

/**
 * `frame` under another id, for a frame nobody has received yet (the bus makes room ahead of the
 * frames it still holds): same type, data, fields and timestamp.
 */
export function renumberFrame(frame: Frame, id: number): Frame {
  const { type, data, promptId, originatorClientId, _meta } = frame.envelope;
  const fields: EnvelopeFields = { ...(promptId === undefined ? {} : { promptId }), ...(originatorClientId === undefined ? {} : { originatorClientId }) };
  return encodeFrame(id, type, data, fields, _meta.serverTimestamp);
}
