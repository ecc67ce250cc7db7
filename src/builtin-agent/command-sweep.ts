/**
 * Ends everything a shell command started, however it detached (Linux /proc; elsewhere the
 * command's process group is all that is ended, by the runner).
 *
 * The agent is a child subreaper (`process-guard.ts`): a process whose parent dies is re-parented
 * to the agent instead of init, so whatever a command started stays in the agent's process tree,
 * whatever it does with its session, group or environment (`setsid`, `env -i`, double forks).
 * When a command ends (its shell exited, it timed out, it was cancelled, its session was closed),
 * `sweepCommand` finds its processes:
 * - those in the group or session its shell led, or carrying its marker (`marked-processes.ts`);
 * - the orphans the agent adopted (its children outside its session that are not a running
 *   command's shell) that carry no other command's or MCP server's marker and started after the
 *   command did. An orphan that left its session and cleared its environment carries nothing else
 *   that says whose it is: one that started while several commands ran is ended with the first of
 *   them to end;
 * - everything linked to those by parent, group or session (`process-table.ts`).
 * Each is stopped (SIGSTOP) as it is found, and the scan repeats until it finds nothing new: a
 * stopped process can neither fork nor die, so none escapes meanwhile. Then all are SIGKILLed, and
 * `awaitGone` waits for them, reaping the adopted ones (the runtime reaps only its own children).
 *
 * What stays out of reach: a process that runs as another user (a setuid program) and cannot be
 * signalled, and one re-parented to a subreaper of its own below the agent (a container runtime)
 * that its command's processes no longer link to. Orphans in the agent's own session (an MCP
 * server's helper whose parent died) are never swept or reaped here: they cannot be told apart from
 * the children the runtime reaps itself (ripgrep, MCP servers). Their server's marker ends them
 * with it; dead, they wait as zombies until the agent exits.
 */
import { readFileSync } from "node:fs";
import { libc } from "../runtime/libc.ts";
import { identify } from "../runtime/process-identity.ts";
import { adoptedOrphans, familyOf, readProcessTable, type ProcessEntry } from "../runtime/process-table.ts";
import { markedPids, markerOf } from "./marked-processes.ts";

/** A running command, as the sweep needs it. */
export interface CommandRecord {
  /** Its shell: the leader of the command's session and group. */
  readonly pid: number;
  readonly marker: string;
  /** The shell's kernel start time (clock ticks since boot), or null where unknown (every orphan is then the command's). */
  readonly startTime: bigint | null;
}

/** Scans of one sweep at most; each finds at least one new process, so this bounds a fork bomb's hold on the agent. */
const MAX_SCANS = 64;
/** How long SIGKILLed processes get to disappear before `awaitGone` stops waiting. */
const GONE_WAIT_MS = 2000;
const POLL_MS = 10;

/** The kernel start time of `pid` (`/proc/<pid>/stat` field 22), a zombie's too (a quick command's shell may be one already), or null. */
export function startTimeOf(pid: number): bigint | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const field = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return field !== undefined && /^\d+$/.test(field) ? BigInt(field) : null;
  } catch {
    return null;
  }
}

function signal(pid: number, name: "SIGSTOP" | "SIGKILL"): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone, or another user's
  }
}

/** The agent's adopted orphans now (live ones), and the dead ones reaped on the way. */
function orphansNow(table: readonly ProcessEntry[], shells: ReadonlySet<number>): ProcessEntry[] {
  const self = table.find((e) => e.pid === process.pid);
  if (self === undefined) return [];
  const live: ProcessEntry[] = [];
  for (const orphan of adoptedOrphans(table, self, (pid) => shells.has(pid)))
    if (orphan.zombie) libc()?.reap(orphan.pid);
    else live.push(orphan);
  return live;
}

/**
 * Stops, then SIGKILLs, what `command` started (see above); with `command` null (the agent is
 * exiting), every orphan the agent adopted, whenever it started. `shells`: the shells of the
 * commands still running, which are not orphans. Returns the pids killed. Synchronous.
 */
export function sweepCommand(command: CommandRecord | null, shells: ReadonlySet<number>): number[] {
  const stopped = new Set<number>();
  for (let scan = 0; scan < MAX_SCANS; scan++) {
    const table = readProcessTable();
    if (table === null) break;
    const marked = command === null ? [] : markedPids(command.marker);
    const orphans = orphansNow(table, shells).filter((o) => {
      if (command === null) return true;
      const marker = markerOf(o.pid);
      if (marker !== null) return marker === command.marker;
      const started = startTimeOf(o.pid);
      return command.startTime === null || started === null || started >= command.startTime;
    });
    const roots = new Set([...marked, ...orphans.map((o) => o.pid), ...stopped]);
    const links = command === null ? roots : new Set([command.pid, ...roots]);
    const found = [...roots, ...familyOf(table, links, new Set([process.pid, ...shells])).map((e) => e.pid)].filter((pid) => pid !== process.pid && !shells.has(pid) && !stopped.has(pid));
    if (found.length === 0) break;
    for (const pid of found) {
      signal(pid, "SIGSTOP");
      stopped.add(pid);
    }
  }
  for (const pid of stopped) signal(pid, "SIGKILL");
  return [...stopped];
}

/** Waits (bounded) until none of `pids` runs, reaping those the agent adopted. */
export async function awaitGone(pids: readonly number[], shells: ReadonlySet<number>): Promise<void> {
  const deadline = performance.now() + GONE_WAIT_MS;
  let left = pids.filter((pid) => identify(pid) !== null);
  while (left.length > 0 && performance.now() < deadline) {
    await Bun.sleep(POLL_MS);
    const table = readProcessTable();
    if (table !== null) orphansNow(table, shells);
    left = left.filter((pid) => identify(pid) !== null);
  }
  const table = readProcessTable();
  if (table !== null) orphansNow(table, shells);
}
