/**
 * `svc update [--apply]`: prints the running version and the newest release's; with `--apply`,
 * downloads and verifies this platform's build (as `prepare` does) and renames it over this binary,
 * after it has answered `--version` with the signed version from beside it. Nothing is written
 * before the archive is verified, and the binary's path always names a whole binary. An older
 * release needs `--allow-downgrade`; run from source (no compiled binary to replace) it refuses.
 */
import { chmodSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BootError } from "../config/boot-error.ts";
import { resolveUpdateConfig, UPDATE_USAGE } from "../config/update-config.ts";
import { RELEASE_PUBLIC_KEY } from "../release/public-key.ts";
import { VERSION } from "../version.ts";
import { fetchSignedRelease } from "./release-check.ts";
import { releaseBase } from "./release-location.ts";
import { fetchBinary, versionOf } from "./stage.ts";
import { UpdateError } from "./update-error.ts";
import { compareVersions } from "./version-order.ts";

export async function updateCommand(args: readonly string[]): Promise<void> {
  let config;
  try {
    config = resolveUpdateConfig({ args, env: process.env, selfEntry: process.argv[1] });
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    process.stderr.write(`svc update: ${err.message}\n`);
    process.exit(2);
  }
  if (config.help) {
    process.stdout.write(UPDATE_USAGE);
    return;
  }
  const base = releaseBase(config.releaseUrl);
  try {
    if (config.apply && !config.compiled) {
      // From source the "binary" is the runtime (bun) running svc: replacing it would break that runtime.
      throw new UpdateError("update_unsupported", `svc is running from source under ${process.execPath}, not as a compiled svc binary: --apply would replace that runtime; install a release instead`);
    }
    const release = await fetchSignedRelease(base, RELEASE_PUBLIC_KEY);
    const order = compareVersions(release.version, VERSION);
    if (order === 0) {
      process.stdout.write(`svc ${VERSION} is the newest release (${base})\n`);
      return;
    }
    if (!config.apply) {
      process.stdout.write(
        order > 0
          ? `svc ${VERSION} is running; ${release.version} is available (${base}): svc update --apply installs it\n`
          : `svc ${VERSION} is running; the release location offers the older ${release.version} (${base}): svc update --apply --allow-downgrade installs it\n`,
      );
      return;
    }
    if (order < 0 && !config.allowDowngrade) {
      throw new UpdateError("update_downgrade", `the release location offers svc ${release.version}, older than this ${VERSION}; pass --allow-downgrade to install it anyway`);
    }
    const binary = await fetchBinary(base, release.sums);
    const target = realpathSync(process.execPath);
    const incoming = join(dirname(target), `.svc-update-${process.pid}`);
    try {
      writeFileSync(incoming, binary, { mode: 0o700 });
      chmodSync(incoming, 0o755);
      const printed = await versionOf(incoming);
      if (printed !== release.version) throw new Error(`the release's binary says it is ${JSON.stringify(printed)}, not the signed version ${release.version}`);
      renameSync(incoming, target);
    } finally {
      rmSync(incoming, { force: true });
    }
    process.stdout.write(`svc ${VERSION} → ${release.version}: installed at ${target}; running daemons keep ${VERSION} until restarted\n`);
  } catch (err) {
    process.stderr.write(`svc update: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
