/**
 * A snapshot of the machine's processes from /proc (Linux) and the family of an agent in it.
 *
 * An agent runs as the leader of its own session and process group. Its family is every live
 * process that is in that session or group, or whose parent, session or group is a family member:
 * tools in their own group (job control) stay in the session, tools in their own session (setsid,
 * as Node's and Bun's `detached` do) are reached through their parent while it lives, and their own
 * groups and sessions through them. A process that left the session *and* lost its parent is no
 * longer connected; the daemon finds those as orphans it adopted (see `adoptedOrphans`).
 */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** Exited, waiting for its parent to reap it: it runs no code and takes no signal. */
  readonly zombie: boolean;
}

/** Parses one /proc/<pid>/stat line (`pid (comm) state ppid pgrp session …`; comm may hold spaces and parentheses). */
export function parseStat(line: string): ProcessEntry | null {
  const close = line.lastIndexOf(")");
  if (close === -1) return null;
  const [state, ppid, pgid, sid] = line.slice(close + 2).split(" ");
  const entry = { pid: Number.parseInt(line, 10), ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), zombie: state === "Z" || state === "X" };
  return Number.isInteger(entry.pid) && Number.isInteger(entry.ppid) && Number.isInteger(entry.sid) ? entry : null;
}

/** Every process now, or null where /proc is missing (not Linux). Processes that exit while read are skipped. */
export function readProcessTable(): ProcessEntry[] | null {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const table: ProcessEntry[] = [];
  for (const name of names) {
    if (name.charCodeAt(0) < 0x30 || name.charCodeAt(0) > 0x39) continue;
    try {
      const entry = parseStat(readFileSync(`/proc/${name}/stat`, "latin1"));
      if (entry) table.push(entry);
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

/**
 * The live members of the family rooted at `roots` (pids that need not exist any more, e.g. an
 * agent that exited): every process whose parent, group or session is a root or a member, to a
 * fixpoint. Never includes `exclude` (the daemon itself). Pure.
 */
export function familyOf(table: readonly ProcessEntry[], roots: Iterable<number>, exclude: ReadonlySet<number> = new Set()): ProcessEntry[] {
  const byLink = new Map<number, ProcessEntry[]>();
  const link = (id: number, entry: ProcessEntry) => {
    const list = byLink.get(id);
    if (list) list.push(entry);
    else byLink.set(id, [entry]);
  };
  for (const entry of table) {
    if (entry.zombie || entry.pid <= 1 || exclude.has(entry.pid)) continue;
    link(entry.ppid, entry);
    if (entry.pgid !== entry.ppid) link(entry.pgid, entry);
    if (entry.sid !== entry.ppid && entry.sid !== entry.pgid) link(entry.sid, entry);
  }
  const members = new Map<number, ProcessEntry>();
  const queue = [...roots];
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const entry of byLink.get(queue.pop()!) ?? []) {
      if (members.has(entry.pid)) continue;
      members.set(entry.pid, entry);
      if (!seen.has(entry.pid)) {
        seen.add(entry.pid);
        queue.push(entry.pid);
      }
    }
  }
  return [...members.values()];
}

/**
 * Processes re-parented to a subreaper `self`: its children outside its own session that it did not
 * start itself (`owned`). Every process the daemon starts outside its session is an agent or the
 * orphan watcher, both `owned`; descendants of agents never join the daemon's session. Pure.
 */
/** Bytes of a process's environment read looking for an entry (a tool's environment is rarely larger). */
const ENVIRON_READ_BYTES = 256 * 1024;

/** Whether process `pid`'s environment holds the entry `entry` (`NAME=value`, exactly); false when it cannot be read. */
export function environHolds(pid: number, entry: string): boolean {
  try {
    const raw = readFileSync(`/proc/${pid}/environ`);
    return raw.subarray(0, ENVIRON_READ_BYTES).toString("utf8").split("\0").includes(entry);
  } catch {
    return false;
  }
}

export function adoptedOrphans(table: readonly ProcessEntry[], self: { pid: number; sid: number }, owned: (pid: number) => boolean): ProcessEntry[] {
  return table.filter((e) => e.ppid === self.pid && e.sid !== self.sid && !owned(e.pid));
}
