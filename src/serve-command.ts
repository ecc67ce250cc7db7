/**
 * `svc serve`: resolve the configuration, harden the process (secrets out of the children's reach,
 * orphans adopted, faults contained), start the daemon, print the bound address on stdout and stop
 * cleanly on SIGINT/SIGTERM. Boot problems print one line and exit 2.
 */
import { BootError } from "./config/boot-error.ts";
import { resolveConfig, type Config } from "./config/config.ts";
import { flagHelp } from "./config/flags.ts";
import { createDaemon, type Daemon } from "./daemon.ts";
import { Logger, stderrOutput } from "./logging/logger.ts";
import { installFaultHandlers } from "./logging/process-faults.ts";
import { adoptOrphans } from "./runtime/agent-family.ts";
import { shieldSecrets } from "./runtime/secret-shield.ts";
import { VERSION } from "./version.ts";

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 5000;

export const SERVE_USAGE = `usage: svc serve [flags]\n\nflags:\n${flagHelp()}\n`;

export async function serveCommand(args: readonly string[], processStartedAt: number): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  let config: Config;
  let daemon: Daemon;
  let logger: Logger;
  try {
    config = resolveConfig({ args, env: process.env, cwd: process.cwd(), version: VERSION, selfEntry: process.argv[1] });
    logger = new Logger(config.log.level, config.log.format, stderrOutput());
    for (const warning of config.warnings) logger.warn(warning);
    shieldProcess(config, logger);
    daemon = createDaemon(config, { logger, processStartedAt });
  } catch (err) {
    if (err instanceof BootError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // From here on a fault belongs to one request, session or child, not to the daemon: log it, keep
  // running. (A fault during boot still ends the process, as it should.)
  installFaultHandlers(process, logger, config.token === null ? [] : [config.token]);
  process.stdout.write(`svc ${VERSION} listening on ${daemon.url}\n`);
  logger.info("listening", { url: daemon.url, workspace: config.workspace, auth: config.token === null ? "none" : "bearer" });

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info("shutting down", { signal });
    const hardStop = setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS);
    hardStop.unref();
    await daemon.stop(SHUTDOWN_DEADLINE_MS - 1000);
    await logger.flush(500);
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/** Before anything is spawned: what children inherit is settled at their spawn. */
function shieldProcess(config: Config, logger: Logger): void {
  const shield = shieldSecrets(config.token === null ? [] : [config.token]);
  logger.debug("secrets shielded", { layers: shield.applied.join(", ") || "none" });
  if (config.token !== null) for (const gap of shield.gaps) logger.warn(`token exposure: ${gap}`);
  if (!adoptOrphans()) logger.debug("not a child subreaper: orphaned tool processes of agents go to init");
}
