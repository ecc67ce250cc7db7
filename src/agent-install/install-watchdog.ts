/**
 * The watchdog between `svc agents install` and its `bun add`. Bun offers no parent-death signal, so
 * a killed install (SIGKILL included) would leave `bun add` running, reparented, for as long as the
 * registry keeps it waiting. The watchdog is svc's own runtime evaluating WATCHDOG_SOURCE: it starts
 * the command (given in SVC_WATCHDOG_ARGV, removed from the command's environment), SIGKILLs it when
 * its own parent changes (the installer died and the watchdog was reparented: checked every
 * WATCH_INTERVAL_MS) or when it gets SIGTERM, SIGINT or SIGHUP, and exits with the command's status
 * (1 when the command was killed). So the command lives at most WATCH_INTERVAL_MS past the installer.
 */
import { devNull } from "node:os";

export const WATCH_INTERVAL_MS = 250;
const ARGV_VAR = "SVC_WATCHDOG_ARGV";

const WATCHDOG_SOURCE = `
const argv = JSON.parse(process.env.${ARGV_VAR});
const env = { ...process.env };
delete env.${ARGV_VAR};
const parent = process.ppid;
const child = Bun.spawn(argv, { env, stdin: "ignore", stdout: "inherit", stderr: "inherit" });
const end = () => { try { child.kill("SIGKILL"); } catch {} };
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, end);
const watch = setInterval(() => { if (process.ppid !== parent) end(); }, ${WATCH_INTERVAL_MS});
await child.exited;
clearInterval(watch);
process.exit(child.exitCode ?? 1);
`;

/**
 * The command line that runs `argv` under the watchdog with `execPath` (bun, or the compiled svc with
 * `BUN_BE_BUN=1` in the environment), and the variable it reads the command from. The watchdog reads
 * no `.env` or bunfig.toml of its cwd.
 */
export function watchedCommand(execPath: string, argv: readonly string[]): { argv: string[]; env: Record<string, string> } {
  return { argv: [execPath, "--no-env-file", `--config=${devNull}`, "--eval", WATCHDOG_SOURCE], env: { [ARGV_VAR]: JSON.stringify(argv) } };
}
