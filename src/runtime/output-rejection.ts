/**
 * What stands in for a line the daemon dropped for being over the channel's frame bound
 * (`stdout-guard.ts`), so that the dropped line's owner hears of it and nobody else does:
 * - an answer to one of the daemon's requests: an error answer with the same id, which fails that
 *   request with OutputRejectedError (502 `output_rejected`; a prompt's `turn_error` code);
 * - a request of the agent: the same id and the method OUTPUT_REJECTED_METHOD, which the channel
 *   answers with an error (the agent stops waiting) after telling the session it names;
 * - a notification naming a session (`session/update`): a notice with OUTPUT_REJECTED_METHOD that
 *   the channel takes off the stream and hands to that session;
 * - anything else: nothing (the log line is all that is left of it).
 * Each stand-in carries the channel's nonce, so an agent cannot pass off a message of its own as
 * the daemon's notice. Pure: builds and reads messages only.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { LineOwner } from "./oversized-line.ts";

export const OUTPUT_REJECTED_METHOD = "svc/outputRejected";

/** A dropped line as its session hears of it. */
export interface OutputRejection {
  readonly sessionId: string;
  /** The line's length, newline excluded, and the bound it passed. */
  readonly bytes: number;
  readonly limit: number;
  /** The method the line carried, when it was a request or a notification. */
  readonly method: string | null;
}

interface NoticeFields {
  readonly nonce: string;
  readonly bytes: number;
  readonly limit: number;
}

const encoder = new TextEncoder();
const line = (message: unknown) => encoder.encode(`${JSON.stringify(message)}\n`);

/** The line put in the place of a dropped one, or null when it had no owner to tell. */
export function standInLine(owner: LineOwner, bytes: number, limit: number, nonce: string): Uint8Array | null {
  const fields: NoticeFields = { nonce, bytes, limit };
  if (owner.kind === "response")
    return line({ jsonrpc: "2.0", id: owner.id, error: { code: -32603, message: tooLarge("answer", bytes, limit), data: { [OUTPUT_REJECTED_METHOD]: fields } } });
  if (owner.kind === "request")
    return line({ jsonrpc: "2.0", id: owner.id, method: OUTPUT_REJECTED_METHOD, params: { ...fields, method: owner.method, ...(owner.sessionId === null ? {} : { sessionId: owner.sessionId }) } });
  if (owner.kind === "notification" && owner.sessionId !== null)
    return line({ jsonrpc: "2.0", method: OUTPUT_REJECTED_METHOD, params: { ...fields, method: owner.method, sessionId: owner.sessionId } });
  return null;
}

export const tooLarge = (what: string, bytes: number, limit: number) => `the agent's ${what} was ${bytes} bytes, over the daemon's ${limit}-byte line limit; it was dropped`;

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The notice in a stand-in's params, when it is the channel's own (its nonce). */
export function noticeOf(params: unknown, nonce: string): OutputRejection | null {
  const p = (params ?? {}) as Record<string, unknown>;
  if (p.nonce !== nonce || typeof p.sessionId !== "string" || !isCount(p.bytes) || !isCount(p.limit)) return null;
  return { sessionId: p.sessionId, bytes: p.bytes, limit: p.limit, method: typeof p.method === "string" ? p.method : null };
}

/** The size of a dropped answer, when an error answer's data is the channel's own stand-in. */
export function droppedAnswer(data: unknown, nonce: string): { bytes: number; limit: number } | null {
  const fields = (data as Record<string, unknown> | null | undefined)?.[OUTPUT_REJECTED_METHOD] as Record<string, unknown> | undefined;
  if (fields?.nonce !== nonce || !isCount(fields.bytes) || !isCount(fields.limit)) return null;
  return { bytes: fields.bytes, limit: fields.limit };
}

/** 502 `output_rejected`: the agent's answer to `method` was over the frame bound and dropped; the channel lives on. */
export class OutputRejectedError extends DaemonError {
  override readonly name = "OutputRejectedError";
  constructor(method: string, bytes: number, limit: number) {
    super(502, "output_rejected", `The agent's answer to ${method} was ${bytes} bytes, over the daemon's ${limit}-byte line limit; it was dropped`, {
      errorKind: "protocol_error",
      bytes,
      limit,
      retryable: false,
    });
  }
}
