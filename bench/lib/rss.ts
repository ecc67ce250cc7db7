/**
 * Resident memory of a live process, from `/proc/<pid>/status` (Linux only): VmRSS (what the target
 * speaks of) split into anonymous pages (heap, JIT, stacks: the process's own) and file-backed pages
 * (mostly the executable's code pages: shared with the page cache and reclaimable).
 */
import { readFileSync } from "node:fs";

export interface Resident {
  /** All in MB (10^6 bytes). */
  readonly rssMb: number;
  readonly anonMb: number;
  readonly fileMb: number;
}

export function residentMemory(pid: number): Resident | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const mb = (field: string) => {
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
    return kib === undefined ? Number.NaN : (Number(kib) * 1024) / 1e6;
  };
  const rssMb = mb("VmRSS");
  return Number.isNaN(rssMb) ? null : { rssMb, anonMb: mb("RssAnon"), fileMb: mb("RssFile") };
}
