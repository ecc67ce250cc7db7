/**
 * Event envelopes and their SSE encoding. An envelope is serialized and UTF-8 encoded once at
 * publish time into a complete SSE frame (`id:`/`event:`/`data:` lines), so fan-out and replay
 * hand the same bytes to every subscriber.
 */
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
}

export interface EnvelopeFields {
  readonly promptId?: string;
  readonly originatorClientId?: string;
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
  const json = JSON.stringify(envelope);
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
      const text = decoder.decode(encoded);
      return JSON.parse(text.slice(text.indexOf("\ndata: ") + 7)) as EventEnvelope;
    },
  };
}
