/**
 * The bearer token's alphabet, checked at boot. A token must reach the daemon unchanged in an
 * `Authorization` header sent by any client, or no request could ever match it, so it is refused
 * at boot (never echoed: messages name a position, not the token):
 * - visible ASCII only (0x21-0x7E): HTTP drops white space around a header value and refuses
 *   control characters (every request would get 400), and non-ASCII has no agreed encoding (a client
 *   sends UTF-8, the server reads the bytes as Latin-1), so such a token only ever answers 401.
 *   This is a superset of RFC 6750's `b64token`, which every generated token (hex, base64,
 *   base64url, UUID) already fits;
 * - no space inside either: RFC 6750 has none, and a shell or client splitting on it breaks it;
 * - 1 to MAX_TOKEN_LENGTH characters: an explicitly empty `--token` is a mistake (an empty
 *   `SVC_SERVER_TOKEN` counts as unset, like every other variable), and the header carrying the
 *   token must fit the request header limit (16 KiB in all, other headers included).
 */
import { BootError } from "./boot-error.ts";

export const MAX_TOKEN_LENGTH = 4096;

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

function describeOffence(token: string): string {
  if (token.trim() !== token) return "must not start or end with white space";
  if (token.length > MAX_TOKEN_LENGTH) return `is longer than ${MAX_TOKEN_LENGTH} characters`;
  const at = [...token].findIndex((c) => !VISIBLE_ASCII.test(c));
  const c = [...token][at]!;
  const what = c === " " ? "a space" : c.codePointAt(0)! < 0x80 ? "a control character" : "a non-ASCII character";
  return `contains ${what} (character ${at + 1}); use visible ASCII characters only, e.g. a hex or base64url string`;
}

/**
 * The configured token: `raw` is `--token`, else a non-empty `SVC_SERVER_TOKEN`, else null (no
 * token). An empty string can only come from the flag. `source` names where a refused token came
 * from (`token-file.ts` names its file).
 */
export function parseToken(raw: string | null, source = "--token or SVC_SERVER_TOKEN"): string | null {
  if (raw === null) return null;
  if (raw === "") throw new BootError("--token: must not be empty (omit it to run without a token)");
  if (!VISIBLE_ASCII.test(raw) || raw.length > MAX_TOKEN_LENGTH) throw new BootError(`the bearer token (${source}) ${describeOffence(raw)}`);
  return raw;
}
