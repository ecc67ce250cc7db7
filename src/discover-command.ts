/**
 * `svc discover [--workspace <dir>]`: for launchers and scripts, prints the discovery record of the
 * live daemon serving the workspace (the earliest started, when several are) as one JSON line on
 * stdout and exits 0; exits 1 with nothing on stdout when none is running (or the discovery folder
 * is refused: a warning on stderr says why); bad arguments print one line on stderr and exit 2. It
 * reads files only (at most it sets a folder of ours back to 0700): no network, no daemon started.
 */
import { BootError } from "./config/boot-error.ts";
import { DISCOVER_USAGE, discoverHelpRequested, resolveDiscoverConfig, type DiscoverConfig } from "./config/discover-config.ts";
import { liveDaemons } from "./runtime/discovery-file.ts";

export function discoverCommand(args: readonly string[]): void {
  if (discoverHelpRequested(args)) {
    process.stdout.write(DISCOVER_USAGE);
    return;
  }
  let config: DiscoverConfig;
  try {
    config = resolveDiscoverConfig({ args, env: process.env, cwd: process.cwd() });
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    process.stderr.write(`svc discover: ${err.message}\n`);
    process.exit(2);
  }
  const [live] = liveDaemons(config.dataDir, config.workspace, (message) => process.stderr.write(`svc discover: ${message}\n`));
  if (live === undefined) {
    process.stderr.write(`svc discover: no running daemon for ${config.workspace}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(live)}\n`);
}
