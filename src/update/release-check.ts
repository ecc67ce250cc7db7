/**
 * What the release location offers: its `SHA256SUMS`, checked against its minisign signature with
 * the release key built into this binary (`src/release/public-key.ts`), and the version the signed
 * trusted comment names (`svc <version>`). Nothing is believed before the signature checks out.
 */
import { decodePublicKey, SignatureError, verifyMinisign } from "../release/minisign.ts";
import { RELEASE_PUBLIC_KEY } from "../release/public-key.ts";
import { download } from "./download.ts";
import { latestFileUrl, SIGNATURE_FILE, SUMS_FILE } from "./release-location.ts";
import { UpdateError } from "./update-error.ts";

/** A SHA256SUMS of a release is a few hundred bytes; a signature under 1 KB. */
const MAX_SUMS_BYTES = 64 * 1024;
const MAX_SIGNATURE_BYTES = 4 * 1024;
export const CHECK_TIMEOUT_MS = 15_000;

export interface SignedRelease {
  readonly version: string;
  /** File name → its sha256 (hex), from the signed SHA256SUMS. */
  readonly sums: ReadonlyMap<string, string>;
}

export async function fetchSignedRelease(base: string, publicKey: string = RELEASE_PUBLIC_KEY): Promise<SignedRelease> {
  const [sums, signature] = await Promise.all([
    download(latestFileUrl(base, SUMS_FILE), MAX_SUMS_BYTES, CHECK_TIMEOUT_MS),
    download(latestFileUrl(base, SIGNATURE_FILE), MAX_SIGNATURE_BYTES, CHECK_TIMEOUT_MS),
  ]);
  let comment: string;
  try {
    comment = verifyMinisign(sums, new TextDecoder().decode(signature), decodePublicKey(publicKey));
  } catch (err) {
    if (err instanceof SignatureError) throw new UpdateError("release_unverified", `the release's ${SUMS_FILE} is not signed by this build's release key: ${err.message}`);
    throw err;
  }
  const version = /^svc (\S+)$/.exec(comment)?.[1];
  if (version === undefined) throw new UpdateError("release_unverified", `the signed comment ${JSON.stringify(comment)} names no svc version`);
  return { version, sums: parseSums(new TextDecoder().decode(sums)) };
}

/** `sha256sum` lines (`<64 hex>  <name>`, `*` for binary mode); other lines are ignored. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line.trim());
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}
