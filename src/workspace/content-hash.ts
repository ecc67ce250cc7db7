/** The content hash the file routes speak: `sha256:<64 lowercase hex>` over raw on-disk bytes. */

export const CONTENT_HASH_PATTERN = "^sha256:[0-9a-f]{64}$";

export function contentHash(bytes: Uint8Array): string {
  return `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;
}
