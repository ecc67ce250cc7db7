/**
 * `svc serve`: resolve the configuration, harden the process (secrets out of the children's reach,
 * orphans adopted, faults contained), start the daemon, publish its discovery file, announce it on
 * stdout (the "listening on" line, with the web UI's address, or with `--ready-json` one JSON line
 * and nothing else), warn when the built-in agent would have no model, open the UI with `--open`, and stop
 * cleanly on SIGINT/SIGTERM or when the `--parent-pid` process ends. Boot problems print one line on
 * stderr and exit 2; a clean stop exits 0. After a restart into an update it exits 0 (the new daemon
 * serves), 75 under a service manager (which restarts it into the new build), or 1 when a rollback
 * could not bind its port again.
 */
import { join } from "node:path";
import { builtinModelConfigured } from "./config/builtin-models.ts";
import { hostKeyVariableNames, splitAgentEnv } from "./config/agent-keys.ts";
import { BootError } from "./config/boot-error.ts";
import { resolveConfig, type Config } from "./config/config.ts";
import { helpRequested } from "./config/flags.ts";
import { launchdStartDataDir } from "./config/launchd-start.ts";
import { createDaemon, type Daemon } from "./daemon.ts";
import { Logger, stderrOutput } from "./logging/logger.ts";
import { routeConsoleToLogger } from "./logging/console-route.ts";
import { loadedModules } from "./logging/loaded-modules.ts";
import { printOut } from "./logging/print-out.ts";
import { installFaultHandlers } from "./logging/process-faults.ts";
import { adoptOrphans } from "./runtime/agent-family.ts";
import { narrowDataDir, type DataDirNarrowing } from "./runtime/private-data-dir.ts";
import { publishDiscovery, type DiscoveryRecord, type PublishedDiscovery } from "./runtime/discovery-file.ts";
import { watchParent, type ParentWatch } from "./runtime/parent-watch.ts";
import { identify, isThisProcess } from "./runtime/process-identity.ts";
import { environmentSecrets, shieldSecrets } from "./runtime/secret-shield.ts";
import { stderrSecrets } from "./runtime/stderr-secrets.ts";
import { VERSION } from "./version.ts";

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 5000;
/** How long a daemon that handed its port to an updated one lingers, so the restart's answer is sent. */
const RETIRE_DELAY_MS = 300;

export async function serveCommand(args: readonly string[], processStartedAt: number): Promise<void> {
  if (helpRequested(args)) {
    printOut((await import("./usage.ts")).serveUsage());
    return;
  }
  let config: Config;
  let daemon: Daemon;
  let logger: Logger;
  let parentWatch: ParentWatch | null = null;
  // Bound below, once the daemon exists; the parent watch's first check comes a tick later at the earliest.
  let shutdown: (cause: { signal: string } | { reason: string }) => Promise<void> = async () => {};
  // Bound below too: what the daemon does once an updated daemon serves its port (restart.ts).
  let retire: () => Promise<void> = async () => {};
  // Started by svc's launchd agent: this daemon bounds launchd's restart loop and the agent's log itself.
  const launchdDataDir = launchdStartDataDir(process.env, process.platform);
  const restarts = launchdDataDir === null ? null : await import("./runtime/launchd-restarts.ts");
  if (launchdDataDir !== null) tryOrWarn(() => restarts?.rotateServiceLog(launchdDataDir), "the service log was not rotated");
  // And what it does when a restart ends it otherwise (a service manager's restart, a port lost for good).
  let leave: (code: number) => Promise<void> = async () => {};
  try {
    config = resolveConfig({ args, env: process.env, cwd: process.cwd(), version: VERSION, selfEntry: process.argv[1] });
    logger = new Logger(config.log.level, config.log.format, stderrOutput());
    for (const warning of config.warnings) logger.warn(warning);
    if (config.agent.agent === "builtin" && !builtinModelConfigured(config.agent.baseEnv, config.dataDir)) logger.warn(noModelLine(config.dataDir));
    const { parentPid } = config.launcher;
    if (parentPid !== null) {
      // `sh -c 'exec svc serve --parent-pid $$'` passes the daemon its own pid: a watch that could never fire.
      if (isThisProcess(parentPid)) throw new BootError(`--parent-pid: ${parentPid} is this daemon's own pid; pass the launcher's pid (the process whose end should stop the daemon)`);
      parentWatch = watchParent(parentPid, () => void shutdown({ reason: "parent-exited" }));
      if (parentWatch === null) throw new BootError(`--parent-pid: no running process has pid ${parentPid}`);
    }
    shieldProcess(config, logger);
    reportNarrowing(narrowDataDir(config.dataDir), config.dataDir, logger);
    daemon = createDaemon(config, { logger, processStartedAt, relaunch: { args, retire: () => void retire(), exit: (code) => void leave(code) } });
  } catch (err) {
    if (err instanceof BootError) {
      process.stderr.write(`svc: ${err.message}\n`);
      if (launchdDataDir !== null && restarts !== null) {
        let outcome = { failures: 0, giveUp: false };
        tryOrWarn(() => void (outcome = restarts.recordFailedStart(launchdDataDir, Date.now())), "the failed start was not recorded");
        const { failures, giveUp } = outcome;
        if (giveUp) {
          process.stderr.write(`svc: ${failures} failed starts under launchd within ${restarts.WINDOW_MS / 60_000} min: exiting 0 so launchd stops restarting; fix the cause, then run svc service install again\n`);
          process.exit(0);
        }
      }
      process.exit(2);
    }
    throw err;
  }
  // From here on a fault belongs to one request, session or child, not to the daemon: log it, keep
  // running. (A fault during boot still ends the process, as it should.)
  installFaultHandlers(process, logger, config.token === null ? [] : [config.token]);
  routeConsoleToLogger(console, logger, stderrSecrets(config.agent, config.token));
  let discovery: PublishedDiscovery | null = null;
  let shuttingDown = false;
  shutdown = async (cause) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info("shutting down", cause);
    // First, so no launcher finds a daemon that is going away.
    discovery?.remove();
    parentWatch?.stop();
    const hardStop = setTimeout(() => process.exit(0), SHUTDOWN_DEADLINE_MS);
    hardStop.unref();
    await daemon.stop(SHUTDOWN_DEADLINE_MS - 1000);
    await logger.flush(500);
    process.exit(0);
  };
  retire = async () => {
    if (shuttingDown) return;
    shuttingDown = true;
    // The new daemon has published its own discovery file and watches --parent-pid itself.
    discovery?.remove();
    parentWatch?.stop();
    // Long enough for the restart's answer to leave; the new daemon already serves.
    await new Promise((resolve) => setTimeout(resolve, RETIRE_DELAY_MS));
    await logger.flush(500);
    process.exit(0);
  };
  leave = async (code) => {
    if (shuttingDown) return;
    shuttingDown = true;
    discovery?.remove();
    parentWatch?.stop();
    // As retire: the answer that led here leaves first.
    await new Promise((resolve) => setTimeout(resolve, RETIRE_DELAY_MS));
    await daemon.stop(SHUTDOWN_DEADLINE_MS - 1000);
    await logger.flush(500);
    process.exit(code);
  };
  // Before the announcement: a launcher may signal the daemon the moment it reads the line, and a
  // signal that came before the handlers would kill the process instead of stopping it cleanly.
  process.on("SIGINT", () => void shutdown({ signal: "SIGINT" }));
  process.on("SIGTERM", () => void shutdown({ signal: "SIGTERM" }));
  // At debug level, SIGUSR2 logs what the daemon has loaded: how the module guard
  // (test/e2e/boot-modules.test.ts) sees what an idle daemon holds.
  if (logger.enabled("debug")) process.on("SIGUSR2", () => logger.debug("modules loaded", { modules: loadedModules().join(" ") }));

  const record = discoveryRecord(config, daemon, processStartedAt);
  // Published before the announcement, so a launcher that has read it finds the file too.
  const published = (discovery = publish(config, record, logger));
  if (published !== null) process.once("exit", () => published.remove());
  // Listening is a start that worked: cleared before the line, so whoever reads it finds the record gone.
  if (launchdDataDir !== null) tryOrWarn(() => restarts?.clearFailedStarts(launchdDataDir), "the record of failed launchd starts was not cleared", logger);
  try {
    printOut(config.launcher.readyJson ? readyLine(record) : `svc ${VERSION} listening on ${daemon.url}${config.web ? ` (web UI: ${daemon.url}/)` : ""}\n`);
  } catch (err) {
    // A launcher that closed our stdout cannot read the line; the daemon serves anyway (discovery file, logs).
    logger.warn("the listening line could not be written to stdout", { error: (err as Error).message });
  }
  logger.info("listening", { url: daemon.url, workspace: config.workspace, auth: record.auth, parentPid: parentWatch?.parent.pid ?? null });
  if (config.launcher.open) await openUi(config, daemon, logger);
}

/** Runs a best-effort step of the launchd bounds; a failure is a warning (on stderr before the logger exists). */
function tryOrWarn(step: () => void, what: string, logger?: Logger): void {
  try {
    step();
  } catch (err) {
    if (logger !== undefined) logger.warn(what, { error: (err as Error).message });
    else process.stderr.write(`svc: ${what}: ${(err as Error).message}\n`);
  }
}

/** The start-up line when the built-in agent would have no model: what to set, in one line. */
function reportNarrowing(narrowing: DataDirNarrowing, dataDir: string, logger: Logger): void {
  const octal = (mode: number) => mode.toString(8).padStart(4, "0");
  if (narrowing?.kind === "narrowed") logger.info(`the data dir was open to other users (mode ${octal(narrowing.from)}); narrowed to 0700`, { dataDir });
  if (narrowing?.kind === "left") logger.warn(`the data dir is open to other users (mode ${octal(narrowing.mode)}) and was left so: ${narrowing.why}; its secrets are readable by them`, { dataDir });
}

function noModelLine(dataDir: string): string {
  return `no model is configured for the built-in agent: set OPENAI_API_KEY and OPENAI_MODEL (or OPENAI_BASE_URL and OPENAI_MODEL for a local server such as Ollama), another pair listed by svc serve --help, or model.providers in ${join(dataDir, "settings.json")}; until then every prompt ends with an error`;
}

/** `--open`: the UI in the user's browser (never with the token: see browser-open.ts); a missing opener is a warning. */
async function openUi(config: Config, daemon: Daemon, logger: Logger): Promise<void> {
  const { openInBrowser, uiOpenUrl } = await import("./runtime/browser-open.ts");
  const url = uiOpenUrl(config.hostname, daemon.port);
  if (config.token !== null) logger.info("--open: the web UI asks for the token; it is not put in the address, where other processes could read it");
  // The browser inherits no secret: no model key, no token variable.
  const { env } = splitAgentEnv(config.agent.baseEnv, hostKeyVariableNames(config.dataDir));
  openInBrowser(url, {
    platform: process.platform,
    env,
    onProblem: (problem) => logger.warn(`--open: the browser could not be opened: ${problem}; open ${daemon.url}/ yourself`),
  });
}

/** What `--ready-json` prints and the discovery file holds (never the token; with `--token-file`, where it is). */
function discoveryRecord(config: Config, daemon: Daemon, processStartedAt: number): DiscoveryRecord {
  return {
    ready: true,
    url: daemon.url,
    port: daemon.port,
    pid: process.pid,
    version: VERSION,
    workspace: config.workspace,
    auth: config.token === null ? "none" : "bearer",
    ...(config.tokenFile === null ? {} : { tokenFile: config.tokenFile }),
    startedAt: new Date(processStartedAt).toISOString(),
    pidStartTime: identify(process.pid)?.startTime ?? null,
  };
}

/** The `--ready-json` line: the record's launcher fields, in the documented order (`tokenFile` only with `--token-file`). */
function readyLine(r: DiscoveryRecord): string {
  const tokenFile = r.tokenFile === undefined ? {} : { tokenFile: r.tokenFile };
  return `${JSON.stringify({ ready: r.ready, url: r.url, port: r.port, pid: r.pid, version: r.version, workspace: r.workspace, auth: r.auth, ...tokenFile })}\n`;
}

/** The discovery file, or null with a warning when the data dir is unusable: serving matters more than being found. */
function publish(config: Config, record: DiscoveryRecord, logger: Logger): PublishedDiscovery | null {
  try {
    const published = publishDiscovery(config.dataDir, record, (message) => logger.warn(message));
    logger.debug("discovery file written", { path: published.path });
    return published;
  } catch (err) {
    logger.warn("discovery file not written: launchers cannot find this daemon with svc discover", { dataDir: config.dataDir, error: (err as Error).message });
    return null;
  }
}

/** Before anything is spawned: what children inherit is settled at their spawn. */
function shieldProcess(config: Config, logger: Logger): void {
  const credentials = environmentSecrets(config.agent.baseEnv, hostKeyVariableNames(config.dataDir));
  const shield = shieldSecrets([...(config.token === null ? [] : [config.token]), ...credentials]);
  logger.debug("secrets shielded", { layers: shield.applied.join(", ") || "none" });
  if (config.token !== null) for (const gap of shield.gaps) logger.warn(`token exposure: ${gap}`);
  if (!adoptOrphans()) logger.debug("not a child subreaper: orphaned tool processes of agents go to init");
}
