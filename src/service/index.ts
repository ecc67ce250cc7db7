/**
 * `svc service install [serve flags] | uninstall | status`: `svc serve` as a user service (a systemd
 * user unit on Linux, a launchd agent on macOS). The entry seam of `src/service/`, imported by
 * `src/main.ts` when the command runs.
 *
 * install: the token file (`token-store.ts`), the unit written atomically (0644: it holds no
 * secret), then the manager loads, enables and (re)starts it. uninstall: stop, disable, remove the
 * unit; the data dir and the token file stay. status: the unit, the manager's state, the daemon's
 * `/health` through its discovery record. Exit codes are in SERVICE_USAGE.
 */
import { closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { BootError } from "../config/boot-error.ts";
import { resolveServiceConfig, SERVICE_USAGE, type ServiceConfig } from "../config/service-config.ts";
import { VERSION } from "../version.ts";
import { serviceHealth } from "./health.ts";
import { launchd } from "./launchd.ts";
import { PlistValueError } from "./launchd-plist.ts";
import type { Say, ServiceManager } from "./service-manager.ts";
import { systemd } from "./systemd.ts";
import { ensureTokenFile, TokenFileError } from "./token-store.ts";

const stdio: Say = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`svc service: ${line}\n`),
};

function writeUnit(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
}

function install(config: ServiceConfig, manager: ServiceManager, say: Say): number {
  const spec = { command: config.command, serveArgs: config.serveArgs, dataDir: config.dataDir, tokenFile: config.tokenFile, path: config.path, version: VERSION };
  let text: string;
  try {
    text = manager.text(spec);
  } catch (err) {
    if (!(err instanceof PlistValueError)) throw err;
    say.err(err.message);
    return 2;
  }
  try {
    const outcome = ensureTokenFile(config.tokenFile, config.givenToken);
    const what = config.givenToken !== null ? "the token from SVC_SERVER_TOKEN" : outcome === "kept" ? "the token it already held" : "a new random token";
    say.out(`token file: ${config.tokenFile} (0600, ${what}; clients send it as the bearer token)`);
  } catch (err) {
    if (!(err instanceof TokenFileError)) throw err;
    say.err(err.message);
    return 1;
  }
  const reinstall = existsSync(config.unitPath);
  writeUnit(config.unitPath, text);
  say.out(`unit: ${config.unitPath}`);
  say.out(`runs: svc serve ${config.serveArgs.join(" ")} --token-file=${config.tokenFile}`);
  const code = manager.install(config, reinstall, say);
  if (code === 0) say.out(`logs: ${manager.logs(config)}; check it with svc service status`);
  return code;
}

function uninstall(config: ServiceConfig, manager: ServiceManager, say: Say): number {
  if (!existsSync(config.unitPath)) {
    say.out(`not installed (no ${config.unitPath})`);
    return 0;
  }
  const code = manager.uninstall(config, say);
  if (code !== 1) say.out(`left in place: the data dir ${config.dataDir} and the token file ${config.tokenFile} (delete them yourself if you no longer want them)`);
  return code;
}

/** The value of `--<name>=…` in an installed unit's command line. */
const flagValue = (exec: readonly string[], name: string) => exec.find((w) => w.startsWith(`--${name}=`))?.slice(name.length + 3) ?? null;

async function status(config: ServiceConfig, manager: ServiceManager, say: Say): Promise<number> {
  if (!existsSync(config.unitPath)) {
    say.out(`not installed (no ${config.unitPath})`);
    return 4;
  }
  say.out(`installed: ${config.unitPath}`);
  say.out(`${manager.name}: ${manager.state(config)}`);
  const { exec, env } = manager.read(readFileSync(config.unitPath, "utf8"));
  const workspace = flagValue(exec, "workspace");
  const dataDir = env.SVC_HOME ?? config.dataDir;
  if (workspace === null) {
    say.out("daemon: unknown (the unit names no --workspace=; reinstall it with svc service install)");
    return 3;
  }
  const health = await serviceHealth(dataDir, workspace, flagValue(exec, "token-file") ?? config.tokenFile, (message) => say.err(message));
  if (health.kind === "none") {
    say.out(`daemon: none running for ${workspace} (no live discovery record in ${dataDir})`);
    return 3;
  }
  const { record } = health;
  if (health.kind === "unhealthy") {
    say.out(`daemon: ${record.url} (pid ${record.pid}) not healthy: ${health.problem}`);
    return 3;
  }
  say.out(`daemon: ${record.url} (pid ${record.pid}, svc ${record.version}, workspace ${record.workspace}) /health ${health.status}`);
  return 0;
}

/** Runs a resolved `svc service` action; resolves with its exit code. */
export async function runService(config: ServiceConfig, say: Say): Promise<number> {
  if (config.action === "help") {
    say.out(SERVICE_USAGE.trimEnd());
    return 0;
  }
  const manager = config.manager === "launchd" ? launchd : systemd;
  try {
    if (config.action === "install") return install(config, manager, say);
    if (config.action === "uninstall") return uninstall(config, manager, say);
    return await status(config, manager, say);
  } catch (err) {
    // A file that cannot be written or removed (permissions, a full disk): its error names it.
    say.err((err as Error).message);
    return 1;
  }
}

export async function serviceCommand(args: readonly string[]): Promise<void> {
  let config: ServiceConfig;
  try {
    config = resolveServiceConfig({ args, env: process.env, cwd: process.cwd(), execPath: process.execPath, selfEntry: process.argv[1] });
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    stdio.err(err.message);
    process.exit(2);
  }
  process.exit(await runService(config, stdio));
}
