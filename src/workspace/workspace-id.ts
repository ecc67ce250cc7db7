/** Stable workspace id: the first 16 hex digits of SHA-256 over the canonical workspace path. */
export function workspaceId(canonicalPath: string): string {
  return new Bun.CryptoHasher("sha256").update(canonicalPath).digest("hex").slice(0, 16);
}
