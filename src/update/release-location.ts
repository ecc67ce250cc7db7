/**
 * Where svc's releases are published and what a release holds (the layout `release/release.ts`
 * writes and `install.sh` reads): `<url>/latest/download/<file>`, with `SHA256SUMS`, its minisign
 * signature `SHA256SUMS.minisig` (trusted comment `svc <version>`) and `svc-<os>-<arch>.tar.gz`.
 */

/** The project's release location; install.sh's `RELEASE_URL` is the same string (a test checks). */
export const RELEASE_URL = "https://github.com/svc-dev/svc/releases";

export const SUMS_FILE = "SHA256SUMS";
export const SIGNATURE_FILE = "SHA256SUMS.minisig";

/** The release location in use: `--release-url`/SVC_RELEASE_URL, else the project's (no trailing slash). */
export const releaseBase = (override: string | null) => (override ?? RELEASE_URL).replace(/\/+$/, "");

/** The address of one file of the newest release. */
export const latestFileUrl = (base: string, file: string) => `${base}/latest/download/${file}`;

const PLATFORMS: Record<string, string> = { "linux-x64": "linux-x64", "linux-arm64": "linux-arm64", "darwin-x64": "darwin-x64", "darwin-arm64": "darwin-arm64" };

/** This machine's archive name, or null where svc publishes no build. */
export function archiveName(platform: string = process.platform, arch: string = process.arch): string | null {
  const target = PLATFORMS[`${platform}-${arch}`];
  return target === undefined ? null : `svc-${target}.tar.gz`;
}
