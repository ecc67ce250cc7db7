/**
 * After an agent exits, on every path (planned stop, crash, daemon shutdown), whatever it started is
 * stopped: its family (see `process-table.ts`) gets SIGTERM, FAMILY_TERM_GRACE_MS to go, then
 * SIGKILL, and is rescanned until a scan finds nobody. Where /proc is missing the family is the
 * agent's process group. A member that outlives SIGKILL (uninterruptible sleep, a setuid process the
 * daemon may not signal) keeps the family watched: SIGKILL again every FAMILY_WATCH_INTERVAL_MS
 * until it is empty. Only then does the orphan watcher forget the group (`onEmpty`).
 *
 * When the daemon is a child subreaper (`svc serve`), tools that left the agent's session and lost
 * their parent are re-parented to the daemon instead of init; the sweep takes those adopted orphans
 * too and reaps them once dead (the runtime only reaps children it started). This build runs one
 * agent at a time per daemon, so every adopted orphan belongs to the agent being swept; with several
 * agents running at once, this would also end the other agents' orphaned helpers.
 */
import { readFileSync } from "node:fs";
import { libc } from "./libc.ts";
import { adoptedOrphans, familyOf, readProcessTable, type ProcessEntry } from "./process-table.ts";

/** How long the family has after SIGTERM before SIGKILL. */
export const FAMILY_TERM_GRACE_MS = 1000;
/** How long SIGKILLed members have to disappear before the sweep counts them as stuck. */
const KILL_WAIT_MS = 1000;
/** How often a stuck family is signalled again. */
const FAMILY_WATCH_INTERVAL_MS = 2000;
const POLL_MS = 20;

export interface SweepDeps {
  /** Processes the daemon started itself (agents, the orphan watcher): never adopted orphans. */
  owned(pid: number): boolean;
  /** The family is empty. */
  onEmpty(): void;
  /** The family outlived SIGKILL; it stays watched. */
  onStuck(pids: readonly number[]): void;
}

export interface Sweep {
  /** The family is empty, or it outlived SIGKILL and is now watched in the background. */
  readonly settled: Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** True while `pid` exists and is not a zombie (a negative pid: while the group has members). */
function isLive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state !== "Z" && state !== "X";
  } catch {
    return process.platform !== "linux";
  }
}

/** Signals the agent's group and each member (members in other groups or sessions are not in the group). */
function send(pids: readonly number[], leader: number, signal: "SIGTERM" | "SIGKILL"): void {
  for (const target of new Set([-leader, ...pids]))
    try {
      process.kill(target, signal);
    } catch {
      // gone already
    }
}

class FamilyScan {
  private readonly self = process.pid;
  private readonly adopts = libc()?.isChildSubreaper() ?? false;
  /** Live orphans the daemon adopted, as of the last scan: its children to reap once they die. */
  private orphans = new Set<number>();

  constructor(
    private readonly leader: number,
    private readonly owned: (pid: number) => boolean,
  ) {}

  /**
   * The live members now; dead orphans the daemon adopted are reaped on the way. Without /proc the
   * group stands for the family: `[-leader]` while it has members.
   */
  members(): number[] {
    const table = readProcessTable();
    if (table === null) return isLive(-this.leader) ? [-this.leader] : [];
    const roots = [this.leader];
    const orphans: ProcessEntry[] = [];
    if (this.adopts) {
      const sid = table.find((e) => e.pid === this.self)?.sid ?? this.self;
      for (const orphan of adoptedOrphans(table, { pid: this.self, sid }, this.owned)) {
        if (orphan.zombie) libc()?.reap(orphan.pid);
        else orphans.push(orphan);
      }
      roots.push(...orphans.map((o) => o.pid));
    }
    this.orphans = new Set(orphans.map((o) => o.pid));
    const members = new Set(familyOf(table, roots, new Set([this.self])).map((e) => e.pid));
    for (const orphan of orphans) members.add(orphan.pid);
    return [...members];
  }

  /** Reaps adopted orphans that died since the last scan. */
  reapDead(): void {
    for (const pid of this.orphans) if (!isLive(pid) && libc()?.reap(pid)) this.orphans.delete(pid);
  }
}

/** Waits until none of `pids` is live, or `ms` passed; true when all are gone. */
async function goneWithin(pids: readonly number[], ms: number, scan: FamilyScan): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    scan.reapDead();
    if (!pids.some(isLive)) return true;
    if (performance.now() >= deadline) return false;
    await pause(POLL_MS);
  }
}

/**
 * Makes the daemon a child subreaper: descendants of its agents that lose their parent are
 * re-parented to it, where the sweep finds them. For `svc serve` only, not for daemons embedded in
 * another process (a test runner), whose other children must not be taken for orphans.
 */
export function adoptOrphans(): boolean {
  return libc()?.becomeChildSubreaper() ?? false;
}

export function sweepFamily(leader: number, deps: SweepDeps): Sweep {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const scan = new FamilyScan(leader, deps.owned);

  void (async () => {
    try {
      const termUntil = performance.now() + FAMILY_TERM_GRACE_MS;
      let stuck = false;
      for (let found = scan.members(); found.length > 0; found = scan.members()) {
        const termLeft = termUntil - performance.now();
        const signal = termLeft > 0 ? "SIGTERM" : "SIGKILL";
        send(found, leader, signal);
        // When all are gone, rescan at once: members may have started others meanwhile.
        if (await goneWithin(found, signal === "SIGTERM" ? termLeft : stuck ? FAMILY_WATCH_INTERVAL_MS : KILL_WAIT_MS, scan)) continue;
        if (signal === "SIGKILL" && !stuck) {
          stuck = true;
          deps.onStuck(found.filter(isLive));
          settle();
        }
      }
      deps.onEmpty();
    } finally {
      settle();
    }
  })();
  return { settled };
}
