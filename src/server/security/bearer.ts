/**
 * Bearer token check. The scheme is case-insensitive and may be followed by spaces or tabs; the
 * credential is compared in constant time over SHA-256 digests, so neither its length nor its
 * content leaks through timing. Missing header, wrong scheme and wrong token all fail alike.
 */
import { timingSafeEqual } from "node:crypto";

const digest = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest();

export function createBearerCheck(token: string): (authorization: string | null) => boolean {
  const expected = digest(token);
  return (authorization) => {
    if (authorization === null || authorization.length < 7) return false;
    if (authorization.slice(0, 6).toLowerCase() !== "bearer") return false;
    const sep = authorization.charCodeAt(6);
    if (sep !== 0x20 && sep !== 0x09) return false;
    const credential = authorization.slice(7).replace(/^[ \t]+/, "");
    if (credential === "") return false;
    return timingSafeEqual(digest(credential), expected);
  };
}
