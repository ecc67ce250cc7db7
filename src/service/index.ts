/**
 * `svc service install [serve flags] | uninstall | status`: `svc serve` as a user service (a systemd
 * user unit on Linux, a launchd agent on macOS). The entry seam of `src/service/`, imported by
 * `src/main.ts` when the command runs.
 *
 * install: the token file (`token-store.ts`), the unit written atomically (0644: it holds no
 * secret), then the manager loads, enables and (re)starts it. uninstall: stop, disable, remove the
 * unit; the data dir and the token file stay. status: the unit, the manager's state, the daemon's
 * `/health` through its discovery record (only the one started with the service's token file).
 * A unit file without svc's header line is never overwritten or removed; with no unit file where
 * this environment puts it, the manager is asked where it loads the service from. Exit codes are
 * in SERVICE_USAGE.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
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
import { writeAtomically } from "./atomic-write.ts";

const stdio: Say = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`svc service: ${line}\n`),
};

function writeUnit(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  writeAtomically(path, text, 0o644);
}

/** A value as the terminal should show it: control characters written as escapes, never sent raw. */
const printable = (text: string) => text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

/** Why svc leaves the file at `path` alone: it was not written by svc service install. */
const foreign = (path: string) => `${path} was not written by svc service install (it lacks svc's header line); svc leaves it alone: move it away first if svc should manage this service`;

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
  const reinstall = existsSync(config.unitPath);
  if (reinstall && !manager.owns(readFileSync(config.unitPath, "utf8"))) {
    say.err(foreign(config.unitPath));
    return 1;
  }
  try {
    const outcome = ensureTokenFile(config.tokenFile, config.givenToken);
    const what = config.givenToken !== null ? "the token from SVC_SERVER_TOKEN" : outcome === "kept" ? "the token it already held" : "a new random token";
    say.out(`token file: ${printable(config.tokenFile)} (0600, ${what}; clients send it as the bearer token)`);
  } catch (err) {
    if (!(err instanceof TokenFileError)) throw err;
    say.err(err.message);
    return 1;
  }
  writeUnit(config.unitPath, text);
  say.out(`unit: ${printable(config.unitPath)}`);
  say.out(`runs: svc serve ${printable(config.serveArgs.join(" "))} --token-file=${printable(config.tokenFile)}`);
  const code = manager.install(config, reinstall, say);
  if (code === 0) say.out(`logs: ${manager.logs(config)}; check it with svc service status`);
  return code;
}

/**
 * The service's unit file and its text: at `config.unitPath`, else where the manager has it loaded
 * from (installed under another XDG_CONFIG_HOME). Otherwise what to say and the exit code: not
 * installed (`absentCode`), svc's state unknown (1), or a file svc did not write (`absentCode`).
 */
function findUnit(config: ServiceConfig, manager: ServiceManager, say: Say, absentCode: number): { path: string; text: string } | number {
  let path = config.unitPath;
  if (!existsSync(path)) {
    const located = manager.locate(config);
    if (located.kind === "absent") {
      say.out(`not installed (no ${config.unitPath}, and the ${manager.name} has none loaded)`);
      return absentCode;
    }
    if (located.kind === "unknown") {
      say.err(`unknown whether it is installed: no ${config.unitPath}, and the ${manager.name} cannot tell (${located.why})`);
      return 1;
    }
    if (!existsSync(located.path)) {
      say.err(`the ${manager.name} has it loaded from ${located.path}, which no longer exists; reload the manager (systemctl --user daemon-reload, or launchctl bootout)`);
      return 1;
    }
    say.out(`found where the ${manager.name} loads it: ${located.path} (not ${config.unitPath}, where this environment puts it)`);
    path = located.path;
  }
  const text = readFileSync(path, "utf8");
  if (!manager.owns(text)) {
    say.err(foreign(path));
    return absentCode === 0 ? 1 : absentCode;
  }
  return { path, text };
}

function uninstall(config: ServiceConfig, manager: ServiceManager, say: Say): number {
  const unit = findUnit(config, manager, say, 0);
  if (typeof unit === "number") return unit;
  const { exec, env } = manager.read(unit.text);
  const dataDir = env.SVC_HOME ?? config.dataDir;
  const tokenFile = flagValue(exec, "token-file") ?? config.tokenFile;
  const code = manager.uninstall({ ...config, unitPath: unit.path }, say);
  if (code === 1) return code;
  const kept = [existsSync(dataDir) ? `the data dir ${dataDir}` : null, existsSync(tokenFile) ? `the token file ${tokenFile}` : null].filter((k) => k !== null);
  if (kept.length > 0) say.out(`left in place: ${kept.join(" and ")} (delete ${kept.length > 1 ? "them" : "it"} yourself if you no longer want ${kept.length > 1 ? "them" : "it"})`);
  return code;
}

/** The value of `--<name>=…` in an installed unit's command line. */
const flagValue = (exec: readonly string[], name: string) => exec.find((w) => w.startsWith(`--${name}=`))?.slice(name.length + 3) ?? null;

async function status(config: ServiceConfig, manager: ServiceManager, say: Say): Promise<number> {
  const unit = findUnit(config, manager, say, 4);
  if (typeof unit === "number") return unit;
  say.out(`installed: ${unit.path}`);
  const state = manager.state(config);
  say.out(`${manager.name}: ${state.text}`);
  const { exec, env } = manager.read(unit.text);
  const workspace = flagValue(exec, "workspace");
  const dataDir = env.SVC_HOME ?? config.dataDir;
  if (workspace === null) {
    say.out("daemon: unknown (the unit names no --workspace=; reinstall it with svc service install)");
    return 3;
  }
  const health = await serviceHealth(dataDir, workspace, flagValue(exec, "token-file") ?? config.tokenFile, (message) => say.err(message));
  if (health.kind === "none") {
    say.out(`daemon: none running for ${workspace} with the service's token file (no such live discovery record in ${dataDir})`);
    return 3;
  }
  const { record } = health;
  if (health.kind === "unhealthy") {
    say.out(`daemon: ${record.url} (pid ${record.pid}) not healthy: ${health.problem}`);
    return 3;
  }
  say.out(`daemon: ${record.url} (pid ${record.pid}, svc ${record.version}, workspace ${record.workspace}) /health ${health.status}`);
  if (!state.active) {
    say.out(`the ${manager.name} does not report the service running: this daemon was not started by it`);
    return 3;
  }
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
