/**
 * A mirror of `svc.db`'s persistent workspace registrations in a small JSON file of the data dir,
 * so the front door can answer `/capabilities` truly before the core is built, without loading
 * SQLite (`server/boot-workspaces.ts`). The store rewrites it after every change to the table, the
 * core's build whenever it differs from the table it read; a write is atomic (a 0600 temp file,
 * fsync, rename) and one that fails removes the mirror, so it is never older than the table.
 *
 * Reading answers `absent` (no mirror: none written yet, or removed after a failed write),
 * `unusable` (not a regular file, past MAX_MIRROR_BYTES, not the shape below) or the rows of one
 * primary workspace. Node's fs only: the idle daemon loads this module.
 */
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, openSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

export const MIRROR_FILE = "workspace-registrations.json";
/**
 * Bound of the file read, in bytes: --max-workspaces (at most 256 by default) registrations of
 * a 4096-character path and a 768-byte name, JSON-escaped, fit several times over for one primary.
 */
export const MAX_MIRROR_BYTES = 4 * 1024 * 1024;

export interface MirrorRow {
  /** The primary workspace it was registered under (`svc.db`'s `primary_workspace`). */
  readonly primary: string;
  readonly id: string;
  readonly path: string;
  readonly displayName: string | null;
}

export type MirrorRead = { readonly kind: "absent" } | { readonly kind: "unusable" } | { readonly kind: "rows"; readonly rows: readonly MirrorRow[] };

const mirrorPath = (dataDir: string) => join(dataDir, MIRROR_FILE);

/** The mirror's text for `rows` (in the table's order). */
const render = (rows: readonly MirrorRow[]) => `${JSON.stringify({ v: 1, registrations: rows.map((r) => ({ primary: r.primary, id: r.id, path: r.path, displayName: r.displayName })) })}\n`;

/** The file's text, null when it is absent; throws `unusable` for one that cannot be trusted. */
function readText(dataDir: string): string | null {
  let fd: number;
  try {
    fd = openSync(mirrorPath(dataDir), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error("unusable");
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_MIRROR_BYTES) throw new Error("unusable");
    const buf = Buffer.alloc(stat.size);
    let n = 0;
    while (n < stat.size) {
      const got = readSync(fd, buf, n, stat.size - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function isRow(value: unknown): value is MirrorRow {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.primary === "string" && typeof r.id === "string" && typeof r.path === "string" && (r.displayName === null || typeof r.displayName === "string");
}

/** The registrations of `primary` as the mirror holds them, oldest first. */
export function readRegistrationMirror(dataDir: string, primary: string): MirrorRead {
  let text: string | null;
  try {
    text = readText(dataDir);
  } catch {
    return { kind: "unusable" };
  }
  if (text === null) return { kind: "absent" };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { kind: "unusable" };
  }
  const registrations = (doc as { v?: unknown; registrations?: unknown } | null)?.registrations;
  if ((doc as { v?: unknown } | null)?.v !== 1 || !Array.isArray(registrations) || !registrations.every(isRow)) return { kind: "unusable" };
  return { kind: "rows", rows: registrations.filter((r) => r.primary === primary) };
}

/** Removes the mirror (the boot answer then waits for the core). */
export function dropRegistrationMirror(dataDir: string): void {
  try {
    unlinkSync(mirrorPath(dataDir));
  } catch {
    // Absent already, or the data dir is unusable: then nothing can be read from it either.
  }
}

/**
 * Writes the mirror of every registration in the table (all primaries), unless it holds them
 * already. A write that fails removes the mirror instead (and rethrows nothing: the mirror is a
 * copy, and without it the front door waits for the core).
 */
export function writeRegistrationMirror(dataDir: string, rows: readonly MirrorRow[]): void {
  const text = render(rows);
  try {
    if (readText(dataDir) === text) return;
  } catch {
    // Unusable: replaced below.
  }
  const path = mirrorPath(dataDir);
  const temp = join(dataDir, `.${MIRROR_FILE}.${process.pid}.${crypto.randomUUID()}.tmp`);
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never created.
    }
    dropRegistrationMirror(dataDir);
  }
}
