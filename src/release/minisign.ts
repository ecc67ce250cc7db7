/**
 * Release signatures in minisign's format, so `minisign -Vm SHA256SUMS -P <key>` checks them as well
 * as svc's own code and `install.sh` (minisign, else OpenSSL 3).
 *
 * Public key: base64("Ed" ‖ key id (8 bytes) ‖ Ed25519 public key (32)). The key id is the first 8
 * bytes of BLAKE2b-512(public key): minisign takes any 8 bytes, and derived ones make the same
 * secret key give the same public key everywhere.
 * Signature file (`.minisig`), the prehashed kind minisign 0.10+ writes by default:
 *   untrusted comment: <text, not covered by any signature>
 *   base64("ED" ‖ key id ‖ Ed25519(BLAKE2b-512(file)))
 *   trusted comment: <text>
 *   base64(Ed25519(signature ‖ trusted comment))
 * Ed25519 signatures are deterministic, so the same file, comment and key give the same bytes.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign as ed25519Sign, verify as ed25519Verify } from "node:crypto";

const PUBLIC_KEY_ALG = "Ed";
const PREHASHED_SIG_ALG = "ED";
const KEY_ID_BYTES = 8;
const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
/** One line of a trusted comment: minisign reads at most 1024 bytes per line. */
const TRUSTED_COMMENT_MAX_BYTES = 1000;

export interface ReleasePublicKey {
  keyId: Uint8Array;
  key: Uint8Array;
}

export class SignatureError extends Error {
  override name = "SignatureError";
}

const blake2b512 = (data: Uint8Array) => new Uint8Array(new Bun.CryptoHasher("blake2b512").update(data).digest());
const ascii = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);
const keyIdHex = (keyId: Uint8Array) => Buffer.from(keyId).reverse().toString("hex").toUpperCase();

/** The Ed25519 private key in a PKCS#8 PEM (what `openssl genpkey -algorithm ed25519` writes). */
export function readSigningKey(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519") throw new SignatureError(`the signing key is ${key.asymmetricKeyType ?? "not an asymmetric key"}, not Ed25519`);
  return key;
}

export function publicKeyOf(signingKey: KeyObject): ReleasePublicKey {
  const jwk = createPublicKey(signingKey).export({ format: "jwk" });
  const key = new Uint8Array(Buffer.from(jwk.x!, "base64url"));
  return { keyId: blake2b512(key).slice(0, KEY_ID_BYTES), key };
}

/** The key as minisign prints it after `-P` (56 base64 characters). */
export function encodePublicKey(publicKey: ReleasePublicKey): string {
  return concat(ascii(PUBLIC_KEY_ALG), publicKey.keyId, publicKey.key).toString("base64");
}

/** A minisign public key file (`minisign.pub`). */
export function publicKeyFile(publicKey: ReleasePublicKey): string {
  return `untrusted comment: svc release key ${keyIdHex(publicKey.keyId)}\n${encodePublicKey(publicKey)}\n`;
}

export function decodePublicKey(encoded: string): ReleasePublicKey {
  const bytes = Buffer.from(encoded.trim(), "base64");
  if (bytes.length !== 2 + KEY_ID_BYTES + KEY_BYTES || bytes.subarray(0, 2).toString("latin1") !== PUBLIC_KEY_ALG) {
    throw new SignatureError("not a minisign Ed25519 public key");
  }
  return { keyId: bytes.subarray(2, 2 + KEY_ID_BYTES), key: bytes.subarray(2 + KEY_ID_BYTES) };
}

/** Signs `data`; `trustedComment` (one line) is covered by the signature and shown by verifiers. */
export function signMinisign(data: Uint8Array, signingKey: KeyObject, trustedComment: string): string {
  if (/[\r\n]/.test(trustedComment) || ascii(trustedComment).length > TRUSTED_COMMENT_MAX_BYTES) {
    throw new SignatureError(`a trusted comment is one line of at most ${TRUSTED_COMMENT_MAX_BYTES} bytes`);
  }
  const { keyId } = publicKeyOf(signingKey);
  const signature = ed25519Sign(null, blake2b512(data), signingKey);
  const globalSignature = ed25519Sign(null, concat(signature, ascii(trustedComment)), signingKey);
  return [
    `untrusted comment: signature from svc release key ${keyIdHex(keyId)}`,
    concat(ascii(PREHASHED_SIG_ALG), keyId, signature).toString("base64"),
    `trusted comment: ${trustedComment}`,
    globalSignature.toString("base64"),
    "",
  ].join("\n");
}

/** Checks a `.minisig` over `data` against the key; answers the trusted comment, else throws SignatureError. */
export function verifyMinisign(data: Uint8Array, minisig: string, publicKey: ReleasePublicKey): string {
  const lines = minisig.split("\n").map((line) => line.replace(/\r$/, ""));
  const [, sigLine = "", commentLine = "", globalLine = ""] = lines;
  const sig = Buffer.from(sigLine, "base64");
  if (sig.length !== 2 + KEY_ID_BYTES + SIGNATURE_BYTES) throw new SignatureError("malformed signature");
  if (sig.subarray(0, 2).toString("latin1") !== PREHASHED_SIG_ALG) throw new SignatureError("not a prehashed (ED) minisign signature");
  if (!sig.subarray(2, 2 + KEY_ID_BYTES).equals(publicKey.keyId)) throw new SignatureError("signed by another key");
  if (!commentLine.startsWith("trusted comment: ")) throw new SignatureError("no trusted comment");
  const trustedComment = commentLine.slice("trusted comment: ".length);
  const signature = sig.subarray(2 + KEY_ID_BYTES);
  const key = publicKeyObject(publicKey);
  if (!ed25519Verify(null, blake2b512(data), key, signature)) throw new SignatureError("signature verification failed");
  if (!ed25519Verify(null, concat(signature, ascii(trustedComment)), key, Buffer.from(globalLine, "base64"))) {
    throw new SignatureError("trusted comment verification failed");
  }
  return trustedComment;
}

function publicKeyObject(publicKey: ReleasePublicKey): KeyObject {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey.key).toString("base64url") }, format: "jwk" });
}
