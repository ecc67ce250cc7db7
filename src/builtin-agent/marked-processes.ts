/**
 * Finding a command's whole descendant set, however it detached: every process the agent starts
 * for a shell command or an MCP server carries a marker in its environment (MARKER_VAR, unique per
 * start), which every descendant inherits through fork and exec, setsid, nohup and double forks
 * included. `markedPids` scans `/proc/<pid>/environ` of the processes this user may read for the
 * marker, and `killMarked` SIGKILLs every one carrying it. A process group kill misses these (they
 * left the group); the marker does not. Its limit: a descendant that starts a program with a
 * cleared environment (`env -i`) is not found here. For a shell command, the command's sweep finds
 * it through the agent's subreaping (`command-sweep.ts`); for an MCP server, the daemon's
 * agent-family cleanup ends it when the agent stops. Linux only (`/proc`); elsewhere it finds nothing.
 */
import { readdirSync, readFileSync } from "node:fs";

export const MARKER_VAR = "SVC_AGENT_RUN";
/** Scans per kill: a marked process may fork while one scan runs; repeated until a scan finds none. */
const MAX_SCANS = 5;

/** A fresh marker value for one start. */
export function newMarker(): string {
  return `${process.pid}-${crypto.randomUUID()}`;
}

/** The marker as an environment entry, for a spawn's env. */
export const markerEnv = (marker: string): Record<string, string> => ({ [MARKER_VAR]: marker });

/** SIGKILLs every process carrying `marker`; returns how many were signalled. Synchronous. */
export function killMarked(marker: string): number {
  let killed = 0;
  for (let scan = 0; scan < MAX_SCANS; scan++) {
    const found = markedPids(marker);
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
        killed++;
      } catch {
        // gone meanwhile
      }
    }
    if (found.length === 0) break;
  }
  return killed;
}

/** The processes (of this user, other than the agent) carrying `marker` now. */
export function markedPids(marker: string): number[] {
  // Entries are NUL-separated: the marker entry is the first one or follows a NUL.
  const entry = `${MARKER_VAR}=${marker}\0`;
  const first = Buffer.from(entry);
  const inner = Buffer.from(`\0${entry}`);
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // gone, or another user's
    }
    if (environ.indexOf(first) === 0 || environ.includes(inner)) pids.push(Number(name));
  }
  return pids;
}

/** The marker `pid` carries (the value of its MARKER_VAR entry), or null: none, or its environment cannot be read. */
export function markerOf(pid: number): string | null {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return null;
  }
  // Entries are NUL-separated: the marker entry is the first one or follows a NUL.
  const name = `${MARKER_VAR}=`;
  const inner = environ.indexOf(`\0${name}`);
  const at = environ.startsWith(name) ? 0 : inner === -1 ? -1 : inner + 1;
  if (at === -1) return null;
  const end = environ.indexOf("\0", at);
  return environ.slice(at + name.length, end === -1 ? undefined : end);
}
