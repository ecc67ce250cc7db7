/**
 * Bearer token check. The scheme is case-insensitive and may be followed by spaces or tabs; the
 * credential is compared in constant time over SHA-256 digests, so neither its length nor its
 * content leaks through timing. Missing header, wrong scheme and wrong token all fail alike.
 */
export const digest = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest();

export function createBearerCheck(token: string): (authorization: string | null) => boolean {
  const expected = digest(token);
  return (authorization) => {
    if (authorization === null || authorization.length < 7) return false;
    if (authorization.slice(0, 6).toLowerCase() !== "bearer") return false;
    const sep = authorization.charCodeAt(6);
    if (sep !== 0x20 && sep !== 0x09) return false;
    const credential = authorization.slice(7).replace(/^[ \t]+/, "");
    if (credential === "") return false;
    return sameDigest(digest(credential), expected);
  };
}

/**
 * Whether two SHA-256 digests are equal, looking at every byte whatever differs (what
 * `crypto.timingSafeEqual` does; `node:crypto` itself costs the idle daemon ~1 MB of memory). The
 * digests, not the credential, are compared, so even a leak would say nothing about the token.
 */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
