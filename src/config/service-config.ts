/**
 * Inputs of `svc service install [serve flags] | uninstall | status`: the action, the platform's
 * service manager and where its unit lives, the data dir (as `svc serve` resolves it), and for
 * `install` the `svc serve` arguments the service runs with. Bad arguments are a BootError.
 *
 * The serve flags are checked as `svc serve` checks them and written back in one form
 * (`--name=value`, so no value can pass for a flag), with `--workspace` made absolute (default: the
 * current directory: a service starts elsewhere). Refused: `--token` (a command line is readable
 * by every process, and the unit is not a secret: install keeps the token in a 0600 file and passes
 * `--token-file`), `--token-file` (install manages that file), `--parent-pid` (the service would
 * stop with that process) and `--open` (a service has no browser).
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BootError } from "./boot-error.ts";
import { canonicalWorkspace, dataDirFor, resolveConfig } from "./config.ts";
import { FLAGS, readFlags } from "./flags.ts";
import { LAUNCHD_LABEL } from "./launchd-start.ts";
import { parseToken } from "./token.ts";

export const SERVICE_USAGE = `usage:
  svc service install [serve flags]   run svc serve as a user service that starts at login and restarts on failure
  svc service uninstall               stop it and remove it (the data dir and the token file stay)
  svc service status                  installed or not, the manager's state, the daemon's /health

Linux: a systemd user unit ($XDG_CONFIG_HOME/systemd/user/svc.service), logs in the journal
(journalctl --user -u svc). macOS: a launchd agent (~/Library/LaunchAgents/dev.svc.daemon.plist),
logs in <data dir>/logs/service.log. The token is kept in <data dir>/service.token (0600; a new
random one unless SVC_SERVER_TOKEN gives it; an existing file is kept) and passed as --token-file.
The serve flags are those of svc serve --help, except --token, --token-file, --parent-pid and --open;
--workspace defaults to the current directory.

svc writes, overwrites and removes only its own unit file (the first line says svc wrote it).

exit codes: 0 done; 1 failed (the reason on stderr); 2 bad arguments; 3 the unit was written or
removed but the service manager could not be reached (the commands to run are printed).
status: 0 installed, running and healthy; 1 unknown (no unit file here and the manager cannot be
asked); 3 installed, not running or not answering; 4 not installed.
`;

export { LAUNCHD_LABEL } from "./launchd-start.ts";
/** The systemd unit's name. */
export const SYSTEMD_UNIT = "svc.service";

export type ServiceAction = "help" | "install" | "uninstall" | "status";

export interface ServiceConfig {
  readonly action: ServiceAction;
  readonly manager: "systemd" | "launchd";
  /** The unit file (systemd) or the agent's plist (launchd). */
  readonly unitPath: string;
  readonly dataDir: string;
  /** Where install keeps the token: `<data dir>/service.token`. */
  readonly tokenFile: string;
  readonly uid: number;
  /** The service's command: this binary (and the entry script when run from source), absolute. */
  readonly command: readonly string[];
  /** `install`: the serve flags, normalized, `--workspace=<absolute>` last. */
  readonly serveArgs: readonly string[];
  /** `install`: the canonical workspace the service serves. */
  readonly workspace: string;
  /** `install`: SVC_SERVER_TOKEN, the token to write instead of a random one. */
  readonly givenToken: string | null;
  /** `install`: the PATH the service gets (this one's absolute entries: agents find node, npx, git as here). */
  readonly path: string;
  /** The environment the service manager's command line tools run with. */
  readonly managerEnv: Readonly<Record<string, string>>;
}

/** A stand-in for the token the service will read from its file, for checking the configuration. */
const CHECK_TOKEN = "svc-service-install-check";

const REFUSED: Readonly<Record<string, string>> = {
  token: "--token is refused: the token would be on the service's command line; svc service install keeps it in a 0600 file (give your own with SVC_SERVER_TOKEN)",
  "token-file": "--token-file is refused: svc service install manages the token file (give your own token with SVC_SERVER_TOKEN)",
  "parent-pid": "--parent-pid is refused: the service would stop when that process ends",
  open: "--open is refused: a service has no browser to open",
};

/** The serve flags as `--name=value` / `--name`, checked as `svc serve` checks them, workspace taken out. */
function normalizeServeArgs(args: readonly string[]): { args: string[]; workspace: string | null } {
  const options = Object.fromEntries(Object.entries(FLAGS).map(([name, spec]) => [name, { type: spec.kind === "bool" ? ("boolean" as const) : ("string" as const), multiple: true }]));
  // The refusals first (whatever else is wrong): they say why the flag has no place in a service.
  for (const token of parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true }).tokens) {
    const refusal = token.kind === "option" ? REFUSED[token.name] : undefined;
    if (refusal !== undefined) throw new BootError(refusal);
  }
  readFlags(args, {});
  const { tokens } = parseArgs({ args: [...args], options, strict: true, allowPositionals: false, tokens: true });
  const out: string[] = [];
  let workspace: string | null = null;
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (token.name === "workspace") workspace = token.value ?? null;
    else out.push(token.value === undefined ? `--${token.name}` : `--${token.name}=${token.value}`);
  }
  return { args: out, workspace };
}

function action(first: string | undefined): ServiceAction {
  if (first === undefined) throw new BootError("needs an action: install, uninstall or status (svc service --help)");
  if (first === "--help" || first === "-h" || first === "help") return "help";
  if (first === "install" || first === "uninstall" || first === "status") return first;
  throw new BootError(`unknown action ${JSON.stringify(first)}: install, uninstall or status`);
}

export function resolveServiceConfig(inputs: {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly execPath: string;
  /** `process.argv[1]`: the entry script from source, `/$bunfs/…` inside the compiled binary. */
  readonly selfEntry: string | undefined;
  readonly platform?: NodeJS.Platform;
  readonly uid?: number;
}): ServiceConfig {
  const [first, ...rest] = inputs.args;
  const act = action(first);
  const wantsHelp = rest.includes("--help") || rest.includes("-h");
  const platform = inputs.platform ?? process.platform;
  if (act !== "help" && platform !== "linux" && platform !== "darwin")
    throw new BootError(`runs on Linux (systemd) and macOS (launchd), not on ${platform}`);
  if ((act === "uninstall" || act === "status") && rest.length > 0 && !wantsHelp) throw new BootError(`${act} takes no arguments`);
  const { env } = inputs;
  const home = env.HOME || homedir();
  const configHome = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, ".config");
  const manager = platform === "darwin" ? "launchd" : "systemd";
  const dataDir = dataDirFor(env, platform);
  const serve = act === "install" && !wantsHelp ? normalizeServeArgs(rest) : { args: [], workspace: null };
  const workspace = act === "install" && !wantsHelp ? canonicalWorkspace(serve.workspace, inputs.cwd) : "";
  const path = (env.PATH ?? "").split(":").filter((entry) => isAbsolute(entry)).join(":") || "/usr/local/bin:/usr/bin:/bin";
  // The whole serve configuration is checked now, as the service will run it (the unit's SVC_HOME
  // and PATH, the HOME and working directory the manager gives it, the token it will have), so a
  // value only `svc serve` refuses (an origin, an agent it cannot find) fails here, not in a restart loop.
  if (workspace !== "")
    resolveConfig({ args: [...serve.args, `--workspace=${workspace}`], env: { SVC_HOME: dataDir, PATH: path, HOME: home, SVC_SERVER_TOKEN: CHECK_TOKEN }, cwd: home, version: "", selfEntry: inputs.selfEntry, execPath: inputs.execPath, platform });
  const compiled = (inputs.selfEntry ?? "").startsWith("/$bunfs/");
  const managerEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && /^(PATH|HOME|USER|LOGNAME|XDG_RUNTIME_DIR|DBUS_SESSION_BUS_ADDRESS|LANG|LC_ALL)$/.test(e[0])));
  return {
    action: wantsHelp ? "help" : act,
    manager,
    unitPath: manager === "launchd" ? join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`) : join(configHome, "systemd", "user", SYSTEMD_UNIT),
    dataDir,
    tokenFile: join(dataDir, "service.token"),
    uid: inputs.uid ?? process.getuid?.() ?? 0,
    command: compiled || inputs.selfEntry === undefined ? [inputs.execPath] : [inputs.execPath, resolve(inputs.cwd, inputs.selfEntry)],
    serveArgs: workspace === "" ? serve.args : [...serve.args, `--workspace=${workspace}`],
    workspace,
    givenToken: act === "install" && !wantsHelp ? parseToken(env.SVC_SERVER_TOKEN || null, "SVC_SERVER_TOKEN") : null,
    path,
    managerEnv,
  };
}
