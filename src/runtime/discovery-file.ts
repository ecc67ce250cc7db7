/**
 * Discovery files: how a launcher finds the daemon already serving a workspace instead of starting a
 * second one. Each running daemon owns one file:
 *
 *   <data dir>/daemons/<key>.<pid>.<startTime>.json     (dir 0700, file 0600)
 *
 * `<key>` is the SHA-256 (hex) of the workspace's canonical real path, `<pid>.<startTime>` the
 * daemon's process identity (`na` where the start time is unknown). The content is one JSON object:
 * the `--ready-json` fields plus `startedAt` and `pidStartTime` (never the token).
 *
 * Rules:
 * - Written atomically (a private temp file, fsynced, renamed into place): a reader sees the whole
 *   file or none of it.
 * - One file per daemon, named by its own identity, so concurrent daemons for one workspace never
 *   write or delete each other's files. A lookup returns the live ones, earliest started first.
 * - Stale files (the pid is gone, or now names another process) are skipped by lookups and swept by
 *   the next daemon that publishes for the same workspace, with any temp file a killed daemon left.
 * - A daemon removes its file on clean exit, and only while the file still records it.
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { stillRunning } from "./process-identity.ts";

/** Subfolder of the data dir that holds the discovery files. */
export const DISCOVERY_FOLDER = "daemons";
/** A discovery file is a few hundred bytes; anything larger than this is not one and is skipped unread. */
const MAX_RECORD_BYTES = 16 * 1024;
/** How many files of one workspace a lookup or sweep reads; the rest are left alone (a directory someone flooded). */
const MAX_FILES_PER_WORKSPACE = 256;

export interface DiscoveryRecord {
  readonly ready: true;
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly version: string;
  readonly workspace: string;
  readonly auth: "none" | "bearer";
  /** ISO time the daemon process started. */
  readonly startedAt: string;
  /** Kernel start time of `pid` (see process-identity.ts), null where unknown; defeats PID reuse. */
  readonly pidStartTime: string | null;
}

export interface PublishedDiscovery {
  readonly path: string;
  /** Deletes the file if it still records this daemon (idempotent, never throws). */
  remove(): void;
}

export const discoveryDir = (dataDir: string) => join(dataDir, DISCOVERY_FOLDER);

export const workspaceKey = (workspace: string) => createHash("sha256").update(workspace).digest("hex");

const fileName = (workspace: string, pid: number, startTime: string | null) => `${workspaceKey(workspace)}.${pid}.${startTime ?? "na"}.json`;

/** `<key>.<pid>.<startTime|na>.json` → the identity it names, or null for any other name (temp files included). */
function parseName(name: string, key: string): { pid: number; startTime: string | null } | null {
  const match = /^([0-9a-f]{64})\.(\d{1,10})\.(\d{1,20}|na)\.json$/.exec(name);
  if (match === null || match[1] !== key) return null;
  return { pid: Number(match[2]), startTime: match[3] === "na" ? null : match[3]! };
}

function isRecord(value: unknown): value is DiscoveryRecord {
  const r = value as Record<string, unknown> | null;
  return (
    typeof r === "object" && r !== null && r.ready === true && typeof r.url === "string" && Number.isInteger(r.port) && Number.isInteger(r.pid) &&
    typeof r.version === "string" && typeof r.workspace === "string" && (r.auth === "none" || r.auth === "bearer") &&
    typeof r.startedAt === "string" && (r.pidStartTime === null || typeof r.pidStartTime === "string")
  );
}

/** The record in `path`, or null when it is missing, oversized or not a discovery record. */
function readRecord(path: string): DiscoveryRecord | null {
  try {
    if (statSync(path).size > MAX_RECORD_BYTES) return null;
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

interface FileEntry {
  readonly path: string;
  readonly pid: number;
  readonly startTime: string | null;
  /** A `.<name>.tmp` file: a write in progress, or left by a daemon killed while writing. */
  readonly temp: boolean;
}

/** The discovery files (and temp files) of `workspace` with the identity each name carries (at most MAX_FILES_PER_WORKSPACE). */
function filesOf(dir: string, workspace: string): FileEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const key = workspaceKey(workspace);
  const out: FileEntry[] = [];
  for (const name of names) {
    const temp = name.startsWith(".") && name.endsWith(".tmp");
    const id = parseName(temp ? name.slice(1, -".tmp".length) : name, key);
    if (id !== null) out.push({ path: join(dir, name), ...id, temp });
    if (out.length >= MAX_FILES_PER_WORKSPACE) break;
  }
  return out;
}

/**
 * Publishes `record` for its workspace: sweeps the workspace's stale files, then writes this
 * daemon's file atomically. Throws the filesystem error when the data dir is unusable (the caller
 * warns and carries on serving).
 */
export function publishDiscovery(dataDir: string, record: DiscoveryRecord): PublishedDiscovery {
  const dir = discoveryDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const file of filesOf(dir, record.workspace))
    if (!stillRunning(file)) tryUnlink(file.path);

  const name = fileName(record.workspace, record.pid, record.pidStartTime);
  const path = join(dir, name);
  // Named by this process's identity too, so no other daemon ever opens it; `wx` refuses a planted one.
  const temp = join(dir, `.${name}.tmp`);
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (err) {
    tryUnlink(temp);
    throw err;
  }
  return {
    path,
    remove() {
      const onDisk = readRecord(path);
      if (onDisk !== null && onDisk.pid === record.pid && onDisk.pidStartTime === record.pidStartTime && onDisk.startedAt === record.startedAt) tryUnlink(path);
    },
  };
}

/** The live daemons serving `workspace` (a canonical real path), earliest started first. */
export function liveDaemons(dataDir: string, workspace: string): DiscoveryRecord[] {
  const live: DiscoveryRecord[] = [];
  for (const file of filesOf(discoveryDir(dataDir), workspace)) {
    if (file.temp) continue;
    const record = readRecord(file.path);
    // The content must agree with the name (a copied or edited file is not trusted) and the process must still run.
    if (record === null || record.workspace !== workspace || record.pid !== file.pid || record.pidStartTime !== file.startTime) continue;
    if (stillRunning(file)) live.push(record);
  }
  return live.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone, or not ours to remove
  }
}
