/**
 * Request body parsing: JSON only, bounded at MAX_JSON_BODY_BYTES whether or not the client sent
 * Content-Length (chunked bodies are counted as they stream and cut off at the cap).
 */
import { DaemonError } from "../errors/daemon-error.ts";

/** Largest JSON request body accepted; larger ones get 413. */
export const MAX_JSON_BODY_BYTES = 10 * 1024 * 1024;

export const bodyTooLarge = () => new DaemonError(413, null, "Request body too large (max 10 MB)");
export const invalidJson = () => new DaemonError(400, null, "Invalid JSON in request body");

/** Content types that are not JSON documents and are left to their routes. */
export function isStreamedUpload(contentType: string | null): boolean {
  return contentType !== null && /^(multipart\/form-data|application\/octet-stream)\b/i.test(contentType);
}

async function readCapped(request: Request, cap: number): Promise<string> {
  if (request.body === null) return "";
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > cap) throw bodyTooLarge();
    return await request.text();
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      reader.cancel().catch(() => {});
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Parses a JSON body; an empty body reads as `{}`. */
export async function readJsonBody(request: Request, cap = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const text = await readCapped(request, cap);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidJson();
  }
}
