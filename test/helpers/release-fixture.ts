/**
 * Releases made by the real `release/release.ts` for the install and release tests: throwaway
 * signing keys made here, small stand-in binaries instead of cross-compiles, and a loopback release
 * host with the same layout as the real one (`/latest/download/<file>`, `/download/v<version>/<file>`).
 */
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./daemon.ts";

export const RELEASE_TS = join(REPO_ROOT, "release", "release.ts");
export const RELEASE_TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"] as const;

/** A fresh Ed25519 key as a PKCS#8 PEM file in `dir`; answers its path. */
export async function makeSigningKey(dir: string, name = "key.pem"): Promise<string> {
  const { privateKey } = generateKeyPairSync("ed25519");
  const path = join(dir, name);
  await Bun.write(path, privateKey.export({ format: "pem", type: "pkcs8" }) as string);
  return path;
}

/** A stand-in svc: a shell script that prints `version` for --version. */
export async function standInBinary(dir: string, version: string): Promise<string> {
  const path = join(dir, `svc-${version}`);
  await Bun.write(path, `#!/bin/sh\necho ${version}\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface ReleaseRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs release.ts with `args`, its environment only `env` (plus PATH). */
export async function runRelease(args: string[], env: Record<string, string> = {}): Promise<ReleaseRun> {
  const proc = Bun.spawn([process.execPath, RELEASE_TS, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH!, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exitCode };
}

/** A signed release of `binary` for every target in `out`, with the key at `keyPath`. */
export async function makeRelease(out: string, binary: string, keyPath: string): Promise<void> {
  const binaries = RELEASE_TARGETS.flatMap((target) => ["--binary", `${target}=${binary}`]);
  const run = await runRelease(["--out", out, "--signing-key", keyPath, "--other-key", ...binaries], { SOURCE_DATE_EPOCH: "1700000000" });
  if (run.exitCode !== 0) throw new Error(`release.ts exited ${run.exitCode}:\n${run.stdout}${run.stderr}`);
}

/** Every file of a release directory by name → its bytes. */
export type ReleaseFiles = Map<string, Uint8Array<ArrayBuffer>>;

export async function readRelease(dir: string): Promise<ReleaseFiles> {
  const files: ReleaseFiles = new Map();
  for (const name of readdirSync(dir).sort()) files.set(name, await Bun.file(join(dir, name)).bytes());
  return files;
}

/**
 * A loopback release host: `releases` maps a version ("latest" or "v0.2.0") to its files by name;
 * answers 404 for anything else, and records every request path.
 */
export function releaseHost(releases: Record<string, ReleaseFiles>) {
  const requested: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      requested.push(path);
      const match = /^\/(?:(latest)\/download|download\/(v[^/]+))\/([^/]+)$/.exec(path);
      const body = match ? releases[match[1] ?? match[2]!]?.get(match[3]!) : undefined;
      return body === undefined ? new Response("not found", { status: 404 }) : new Response(body);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requested, [Symbol.asyncDispose]: () => server.stop(true) };
}
