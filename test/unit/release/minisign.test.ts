/** Release signatures: svc's minisign format round trip, what it refuses, and agreement with the real minisign. */
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import {
  decodePublicKey,
  encodePublicKey,
  publicKeyOf,
  readSigningKey,
  SignatureError,
  signMinisign,
  verifyMinisign,
} from "../../../src/release/minisign.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const data = new TextEncoder().encode("0123abcd  svc-linux-x64.tar.gz\n");
const newKey = () => readSigningKey(generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }) as string);

describe("minisign signatures", () => {
  const key = newKey();
  const publicKey = decodePublicKey(encodePublicKey(publicKeyOf(key)));
  const signature = signMinisign(data, key, "svc 0.2.0+abc");

  test("verify the data they sign and answer the trusted comment; the same inputs give the same bytes", () => {
    expect(verifyMinisign(data, signature, publicKey)).toBe("svc 0.2.0+abc");
    expect(signMinisign(data, key, "svc 0.2.0+abc")).toBe(signature);
    expect(encodePublicKey(publicKeyOf(key))).toMatch(/^RW[A-Za-z0-9+/]{54}$/);
  });

  test("refuse changed data, a changed trusted comment, another key and damage", () => {
    const refuse = (bytes: Uint8Array, minisig: string, message: string, key_ = publicKey) =>
      expect(() => verifyMinisign(bytes, minisig, key_)).toThrow(new SignatureError(message));
    refuse(new TextEncoder().encode("0123abce  svc-linux-x64.tar.gz\n"), signature, "signature verification failed");
    refuse(data, signature.replace("trusted comment: svc 0.2.0+abc", "trusted comment: svc 9.9.9"), "trusted comment verification failed");
    refuse(data, signature, "signed by another key", publicKeyOf(newKey()));
    refuse(data, signature.replace(/^(.*\n)(.)/, (_, line: string, c: string) => line + (c === "A" ? "B" : "A")), "not a prehashed (ED) minisign signature");
    refuse(data, "", "malformed signature");
    expect(() => decodePublicKey("RWQ=")).toThrow(SignatureError);
  });

  test("only Ed25519 keys sign", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "pem", type: "pkcs8" }) as string;
    expect(() => readSigningKey(rsa)).toThrow("not Ed25519");
  });

  test.skipIf(Bun.which("minisign") === null)("the real minisign checks ours, and ours checks the real minisign's", async () => {
    await using dir = tempDir();
    const file = join(dir.path, "SHA256SUMS");
    await Bun.write(file, data);
    await Bun.write(`${file}.minisig`, signature);
    const ours = Bun.spawnSync(["minisign", "-V", "-m", file, "-P", encodePublicKey(publicKey)], { stdout: "pipe", stderr: "pipe" });
    expect(ours.stdout.toString()).toContain("Trusted comment: svc 0.2.0+abc");
    expect(ours.exitCode).toBe(0);

    const [pub, sec] = [join(dir.path, "m.pub"), join(dir.path, "m.key")];
    expect(Bun.spawnSync(["minisign", "-G", "-W", "-p", pub, "-s", sec], { stdout: "ignore", stderr: "pipe" }).exitCode).toBe(0);
    expect(Bun.spawnSync(["minisign", "-S", "-s", sec, "-m", file, "-t", "from minisign"], { stdout: "ignore", stderr: "pipe" }).exitCode).toBe(0);
    const theirs = decodePublicKey((await Bun.file(pub).text()).split("\n")[1]!);
    expect(verifyMinisign(data, await Bun.file(`${file}.minisig`).text(), theirs)).toBe("from minisign");
  });
});
