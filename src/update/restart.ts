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
 *  4. The new daemon is started with the same arguments (the port the old one bound pinned) and
 *     environment, and must answer `GET /health` on the same port within HEALTH_DEADLINE_MS.
 *  5. It does: the backup is removed, the stage cleared, the outcome recorded, and the old daemon
 *     retires (removes its discovery file, exits once this answer is out).
 *     It does not (it exited, or is silent at the deadline): it is killed, the backup is renamed
 *     back over the path, the old daemon binds the port again and goes on (sessions restore on
 *     their next use), and the restart fails with `update_restart_failed`.
 */
import { chmodSync, copyFileSync, linkSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
  /** `http://host:port/health` of this daemon's listener, and the bearer token it takes. */
  readonly healthUrl: string;
  readonly token: string | null;
  /** Answers 503 to new requests, stops accepting, ends the sessions (restorable), stops agents, closes the store. */
  suspend(): Promise<void>;
  /** Binds the port again and serves (the core is rebuilt on the next request). */
  resume(): void;
  /** The new daemon serves: leave (discovery file removed, exit once the answer is sent). */
  retire(): void;
}

export interface LastRestart {
  readonly outcome: "restarted" | "rolled_back";
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly at: string;
  readonly fromPid: number;
  /** The new daemon's pid (null after a rollback). */
  readonly pid: number | null;
  readonly error: string | null;
}

/** A restart that went through: the new daemon serves. */
export type Restarted = LastRestart & { readonly outcome: "restarted"; readonly pid: number; readonly error: null };

export function readLastRestart(dataDir: string): LastRestart | null {
  try {
    const text = readFileSync(join(updateDir(dataDir), LAST_RESTART), "utf8");
    if (text.length > MAX_LAST_RESTART_BYTES) return null;
    const value = JSON.parse(text) as LastRestart;
    return value.outcome === "restarted" || value.outcome === "rolled_back" ? value : null;
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
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let failure: string;
  try {
    await host.suspend();
    child = Bun.spawn([target, ...host.argv], { env: { ...host.env }, stdin: "ignore", stdout: "inherit", stderr: "inherit" });
    failure = await waitHealthy(host, child);
  } catch (err) {
    failure = `the new daemon could not be started: ${(err as Error).message}`;
  }
  if (failure === "" && child !== null) {
    rmSync(previous, { force: true });
    clearStaged(dataDir);
    const record: Restarted = { outcome: "restarted", ...base, at: new Date().toISOString(), pid: child.pid, error: null };
    recordLastRestart(dataDir, record);
    child.unref();
    host.retire();
    return record;
  }
  if (child !== null && child.exitCode === null) {
    child.kill("SIGKILL");
    await child.exited;
  }
  renameSync(previous, target);
  host.resume();
  const record: LastRestart = { outcome: "rolled_back", ...base, at: new Date().toISOString(), pid: null, error: failure };
  recordLastRestart(dataDir, record);
  throw new UpdateError("update_restart_failed", `svc ${staged.version} did not start (${failure}); svc ${currentVersion} is back and serving`, { rolledBack: true });
}

/** "" once the new daemon answers /health while still running; else why not. */
async function waitHealthy(host: RestartHost, child: ReturnType<typeof Bun.spawn>): Promise<string> {
  const deadline = Date.now() + HEALTH_DEADLINE_MS;
  const headers: Record<string, string> = host.token === null ? {} : { authorization: `Bearer ${host.token}` };
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return `it exited (${child.signalCode ?? `code ${child.exitCode}`})`;
    try {
      const response = await fetch(host.healthUrl, { headers, keepalive: false, signal: AbortSignal.timeout(HEALTH_REQUEST_TIMEOUT_MS) });
      await response.body?.cancel();
      if (response.ok && child.exitCode === null) return "";
    } catch {
      // Not listening yet.
    }
    await Promise.race([child.exited, Bun.sleep(HEALTH_POLL_MS)]);
  }
  return `it did not answer /health within ${HEALTH_DEADLINE_MS} ms`;
}
