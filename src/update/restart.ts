/**
 * Restarting into the staged update. In order:
 *  1. The staged binary is copied beside the running one (`.svc-update-<pid>`, same folder, so the
 *     swap is one rename) and its sha256 checked against the stage; the running binary gets a second
 *     name (`.svc-previous-<pid>`, a hard link: the old bytes, kept for a rollback). A folder that
 *     cannot take them fails here, with nothing changed.
 *  2. The new binary is renamed over the running one's path (atomic: the path always names a
 *     whole binary).
 *  3. The daemon suspends (`RestartHost.suspend`): every request answers 503 `daemon_restarting`,
 *     the listener stops accepting, the sessions end as restorable (their streams get
 *     `session_died` `daemon_shutdown`), the agents stop and the store closes (its lock is free).
 *  4. The new daemon is started with the same arguments (the port the old one bound pinned, no
 *     `--open`) and environment plus a fresh nonce (`config/update-handover.ts`), and must answer
 *     `GET /health` on the same port, echoing that nonce, within HEALTH_DEADLINE_MS. The check
 *     carries no token, and an answer without the nonce (a process that grabbed the port in
 *     between) does not count.
 *  5. It does: the backup is removed, the stage cleared, the outcome recorded, and the old daemon
 *     retires (removes its discovery file, exits once this answer is out).
 *     It does not (it exited, or is silent at the deadline): it is killed, the backup is renamed
 *     back over the path, the old daemon binds the port again and goes on (sessions restore on
 *     their next use), and the restart fails with `update_restart_failed`. A port that cannot be
 *     bound again is said in that answer; the daemon keeps trying for a while, then exits with an
 *     error (`RestartHost.resume`).
 * A shutdown (signal, `--parent-pid`) during steps 3–5 first undoes the restart (`abandon`): the
 * new daemon is killed and the old binary renamed back.
 * Under a service manager (systemd, launchd) steps 4–5 are the manager's: the binary is swapped,
 * the daemon suspends and exits with SERVICE_RESTART_EXIT_CODE (`config/update-handover.ts`), a
 * failure exit the unit restarts on; there is no rollback (the staged build has answered `--version`, nothing more).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, linkSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { HANDOVER_NONCE_ENV, HANDOVER_NONCE_HEADER, HANDOVER_REQUEST_HEADER, type ServiceManager } from "../config/update-handover.ts";
import { clearStaged, sha256Hex, updateDir, type StagedUpdate } from "./stage.ts";
import { UpdateError } from "./update-error.ts";

/** How long the new daemon has to answer /health once started. */
export const HEALTH_DEADLINE_MS = 20_000;
const HEALTH_POLL_MS = 100;
const HEALTH_REQUEST_TIMEOUT_MS = 2000;
const LAST_RESTART = "last-restart.json";
const MAX_LAST_RESTART_BYTES = 16 * 1024;

/** What the daemon lends a restart: its listener, its core and its process. */
export interface RestartHost {
  /** The arguments (after the binary) and environment the new daemon starts with. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** `http://host:port/health` of this daemon's listener. */
  readonly healthUrl: string;
  /** The service manager running this daemon (it restarts the daemon), or null. */
  readonly serviceManager: ServiceManager | null;
  /** Answers 503 to new requests, stops accepting, ends the sessions (restorable), stops agents, closes the store. */
  suspend(): Promise<void>;
  /** Binds the port again and serves (the core is rebuilt on the next request); null once bound, else why not (it keeps trying, then exits). */
  resume(): string | null;
  /** The new daemon serves: leave (discovery file removed, exit once the answer is sent). */
  retire(): void;
  /** Under a service manager: leave with SERVICE_RESTART_EXIT_CODE (config/update-handover.ts) once the answer is sent. */
  exitForServiceRestart(): void;
  /** What a shutdown during the restart runs first (null once there is nothing to undo). */
  setAbandon(abandon: (() => void) | null): void;
}

export interface LastRestart {
  readonly outcome: "restarted" | "rolled_back" | "service_restart";
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly at: string;
  readonly fromPid: number;
  /** The new daemon's pid (null after a rollback, and under a service manager, which starts it). */
  readonly pid: number | null;
  readonly error: string | null;
}

/** A restart that went through: the new daemon serves, or the service manager starts it. */
export type Restarted = LastRestart & { readonly outcome: "restarted" | "service_restart"; readonly error: null };

export function readLastRestart(dataDir: string): LastRestart | null {
  try {
    const text = readFileSync(join(updateDir(dataDir), LAST_RESTART), "utf8");
    if (text.length > MAX_LAST_RESTART_BYTES) return null;
    const value = JSON.parse(text) as LastRestart;
    return value.outcome === "restarted" || value.outcome === "rolled_back" || value.outcome === "service_restart" ? value : null;
  } catch {
    return null;
  }
}

function recordLastRestart(dataDir: string, record: LastRestart): void {
  try {
    writeFileSync(join(updateDir(dataDir), LAST_RESTART), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch {
    // The record is informational; the restart's answer carries the same.
  }
}

export async function restartInto(staged: StagedUpdate, host: RestartHost, dataDir: string, currentVersion: string): Promise<Restarted> {
  const target = realpathSync(process.execPath);
  const incoming = join(dirname(target), `.svc-update-${process.pid}`);
  const previous = join(dirname(target), `.svc-previous-${process.pid}`);
  try {
    copyFileSync(staged.binary, incoming);
    chmodSync(incoming, 0o755);
    rmSync(previous, { force: true });
    linkSync(target, previous);
  } catch (err) {
    rmSync(incoming, { force: true });
    rmSync(previous, { force: true });
    throw new UpdateError("update_not_writable", `the new build cannot be put beside ${target}: ${(err as Error).message}`);
  }
  if (sha256Hex(readFileSync(incoming)) !== staged.sha256) {
    rmSync(incoming, { force: true });
    rmSync(previous, { force: true });
    throw new UpdateError("release_unverified", "the staged binary changed since it was verified; prepare the update again");
  }
  renameSync(incoming, target);
  const base = { fromVersion: currentVersion, toVersion: staged.version, fromPid: process.pid };
  if (host.serviceManager !== null) {
    rmSync(previous, { force: true });
    clearStaged(dataDir);
    await host.suspend();
    const record: Restarted = { outcome: "service_restart", ...base, at: new Date().toISOString(), pid: null, error: null };
    recordLastRestart(dataDir, record);
    host.exitForServiceRestart();
    return record;
  }
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let restored = false;
  /** Kills the new daemon and puts the old binary back; once. */
  const undo = () => {
    if (child !== null && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    if (restored) return;
    restored = true;
    renameSync(previous, target);
  };
  host.setAbandon(undo);
  let failure: string;
  try {
    await host.suspend();
    const nonce = randomBytes(24).toString("base64url");
    child = Bun.spawn([target, ...host.argv], { env: { ...host.env, [HANDOVER_NONCE_ENV]: nonce }, stdin: "ignore", stdout: "inherit", stderr: "inherit" });
    failure = restored ? "the daemon is shutting down" : await waitHealthy(host.healthUrl, nonce, child, () => restored);
  } catch (err) {
    failure = `the new daemon could not be started: ${(err as Error).message}`;
  }
  if (failure === "" && child !== null) {
    host.setAbandon(null);
    rmSync(previous, { force: true });
    clearStaged(dataDir);
    const record: Restarted = { outcome: "restarted", ...base, at: new Date().toISOString(), pid: child.pid, error: null };
    recordLastRestart(dataDir, record);
    child.unref();
    host.retire();
    return record;
  }
  undo();
  host.setAbandon(null);
  if (child !== null) await child.exited;
  const rebind = host.resume();
  const record: LastRestart = { outcome: "rolled_back", ...base, at: new Date().toISOString(), pid: null, error: rebind === null ? failure : `${failure}; ${rebind}` };
  recordLastRestart(dataDir, record);
  const serving = rebind === null ? `svc ${currentVersion} is back and serving` : `svc ${currentVersion} is back but not serving: ${rebind}`;
  throw new UpdateError("update_restart_failed", `svc ${staged.version} did not start (${failure}); ${serving}`, { rolledBack: true });
}

/**
 * "" once the new daemon answers /health with the nonce while still running; else why not. No
 * token is sent: whoever holds the port gets the request.
 */
async function waitHealthy(healthUrl: string, nonce: string, child: ReturnType<typeof Bun.spawn>, abandoned: () => boolean): Promise<string> {
  const deadline = Date.now() + HEALTH_DEADLINE_MS;
  let stranger = false;
  while (Date.now() < deadline) {
    if (abandoned()) return "the daemon is shutting down";
    if (child.exitCode !== null || child.signalCode !== null) return `it exited (${child.signalCode ?? `code ${child.exitCode}`})${stranger ? "; another process answered on the port" : ""}`;
    try {
      const response = await fetch(healthUrl, { headers: { [HANDOVER_REQUEST_HEADER]: "1" }, keepalive: false, signal: AbortSignal.timeout(HEALTH_REQUEST_TIMEOUT_MS) });
      await response.body?.cancel();
      if (response.headers.get(HANDOVER_NONCE_HEADER) === nonce && child.exitCode === null) return "";
      stranger = true;
    } catch {
      // Not listening yet.
    }
    await Promise.race([child.exited, Bun.sleep(HEALTH_POLL_MS)]);
  }
  return `it did not answer /health within ${HEALTH_DEADLINE_MS} ms${stranger ? " (another process answered on the port)" : ""}`;
}
