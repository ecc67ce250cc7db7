/**
 * Everything an agent starts, followed from its spawn until the last of it is gone (Linux /proc;
 * elsewhere the agent's process group stands for the family). Membership is in `process-table.ts`.
 *
 * While the agent runs, the family is scanned every FAMILY_SCAN_INTERVAL_MS: members that lead a
 * session of their own (tools started with setsid) and orphans the daemon adopted are registered
 * with the orphan watcher as family roots. After a daemon SIGKILL the agent and those tools' parents
 * may die before the watcher looks (a write to the dead daemon's pipe is a SIGPIPE), which would
 * disconnect them from the agent; registered, they stay connected through their own session. A
 * tool that leaves within the last interval before a SIGKILL is found by the family marker in its
 * environment instead (see `orphan-reaper.ts`).
 *
 * A planned stop signals the family along with the agent's group (`signalOutsideGroup`). After the agent exits, on every
 * path (planned stop, crash, daemon shutdown), the family is swept: SIGTERM, FAMILY_TERM_GRACE_MS to
 * go (counted from the first SIGTERM the family got), then SIGKILL, rescanning until a scan finds nobody. A member
 * that outlives SIGKILL (uninterruptible sleep, a setuid process the daemon may not signal) keeps
 * the family watched: SIGKILL again every FAMILY_WATCH_INTERVAL_MS until it is empty. Only then does
 * the orphan watcher forget the family. Until the sweep ends or settles on a stuck family, its waits
 * keep the process alive, so a daemon shutting down finishes the sweep rather than exiting mid-grace.
 *
 * When the daemon is a child subreaper (`svc serve`, see `adoptOrphans`), tools that lose their
 * parent are re-parented to the daemon instead of init (the built-in agent's, only once the agent is
 * gone: it is a subreaper itself and ends them with their command); the family takes those adopted
 * orphans it can tell are its own and reaps them once dead (the runtime only reaps children it
 * started). A daemon runs an agent per workspace, and processes the daemon starts for itself (the
 * browser `--open` starts, which may detach) are adopted too, so an adopted orphan is this family's
 * only when it was a member at an earlier scan or its environment holds this agent's own marker
 * (`marker`: FAMILY_MARKER_VAR with this agent's value). Others are left alone; any dead adopted
 * orphan is reaped.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "../logging/logger.ts";
import { libc } from "./libc.ts";
import type { OrphanReaper } from "./orphan-reaper.ts";
import { adoptedOrphans, environHolds, familyOf, readProcessTable, type ProcessEntry } from "./process-table.ts";
import { ownChildren } from "./own-children.ts";

/** How often a running agent's family is scanned for roots to register with the watcher (~1–10 ms a scan). */
const FAMILY_SCAN_INTERVAL_MS = 2000;
/** How long the family has after SIGTERM before SIGKILL. */
const FAMILY_TERM_GRACE_MS = 1000;
/** How long SIGKILLed members have to disappear before the sweep counts them as stuck. */
const KILL_WAIT_MS = 1000;
/** How often a stuck family is signalled again. */
const FAMILY_WATCH_INTERVAL_MS = 2000;
const POLL_MS = 20;

/**
 * Makes the daemon a child subreaper: descendants of its agents that lose their parent are
 * re-parented to it, where the family finds them. For `svc serve` only, not for daemons embedded in
 * another process (a test runner), whose other children must not be taken for orphans.
 */
export function adoptOrphans(): boolean {
  return libc()?.becomeChildSubreaper() ?? false;
}

/**
 * Waits `ms`. While the sweep is signalling the family (`holdOpen`) the timer keeps the process
 * alive: a daemon whose listener and agent are gone must not exit mid-sweep, cutting its tools'
 * SIGTERM grace short. Watching a family that outlived SIGKILL does not keep it alive.
 */
function pause(ms: number, holdOpen: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (!holdOpen) timer.unref();
  });
}

/** True while `pid` exists and is not a zombie (a negative pid: while the group has members). */
function isLive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (pid < 0) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state !== "Z" && state !== "X";
  } catch {
    return true; // no /proc to tell a zombie apart: the signal check stands
  }
}

/** Signals each member outside the agent's group (members in other groups or sessions). */
function sendOutsideGroup(members: readonly ProcessEntry[], leader: number, signal: "SIGTERM" | "SIGKILL"): void {
  for (const member of members)
    if (member.pgid !== leader)
      try {
        process.kill(member.pid, signal);
      } catch {
        // gone already
      }
}

/** Signals the agent's group and each member outside it; a member in the group gets the signal once. */
function send(members: readonly ProcessEntry[], leader: number, signal: "SIGTERM" | "SIGKILL"): void {
  sendOutsideGroup(members, leader, signal);
  try {
    process.kill(-leader, signal);
  } catch {
    // the group is empty
  }
}

export class AgentFamily {
  private readonly self = process.pid;
  private readonly adopts = libc()?.isChildSubreaper() ?? false;
  /** Live orphans the daemon adopted, as of the last scan: its children to reap once they die. */
  private orphans = new Set<number>();
  /** The members found at the last scan: an orphan among them stays this family's once adopted. */
  private known = new Set<number>();
  /**
   * Roots registered with the watcher (besides the agent). Bounded by the processes alive: a root
   * that no live process refers to any more (as its pid, group or session) is forgotten at the next scan.
   */
  private readonly watched = new Set<number>();
  private timer: Timer | null = null;
  /** When the family first got SIGTERM (performance.now()), if it did. */
  private termSentAt: number | null = null;

  constructor(
    private readonly leader: number,
    private readonly reaper: OrphanReaper,
    private readonly logger: Logger,
    /** The `NAME=value` entry this agent's environment started with (its family marker). */
    private readonly marker: string,
  ) {}

  /** Starts the periodic scan of a running agent's family. */
  follow(): void {
    if (process.platform !== "linux") return;
    this.timer = setInterval(() => this.members(), FAMILY_SCAN_INTERVAL_MS);
    this.timer.unref();
  }

  /** Sends `signal` now to the members outside the agent's group (a planned stop's SIGTERM and SIGKILL steps, which signal the group itself). */
  signalOutsideGroup(signal: "SIGTERM" | "SIGKILL"): void {
    if (signal === "SIGTERM") this.termSentAt ??= performance.now();
    sendOutsideGroup(this.members(), this.leader, signal);
  }

  /**
   * Once the agent has exited: sweeps its family. Resolves when the family is empty, or when it
   * outlived SIGKILL (logged; SIGKILL is then repeated in the background until it is empty).
   */
  sweep(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    void (async () => {
      try {
        const termUntil = (this.termSentAt ?? performance.now()) + FAMILY_TERM_GRACE_MS;
        let stuck = false;
        for (let found = this.members(); found.length > 0; found = this.members()) {
          const termLeft = termUntil - performance.now();
          const signal = termLeft > 0 ? "SIGTERM" : "SIGKILL";
          send(found, this.leader, signal);
          const pids = found.map((m) => m.pid);
          // When all are gone, rescan at once: members may have started others meanwhile.
          if (await this.goneWithin(pids, signal === "SIGTERM" ? termLeft : stuck ? FAMILY_WATCH_INTERVAL_MS : KILL_WAIT_MS, !stuck)) continue;
          if (signal === "SIGKILL" && !stuck) {
            stuck = true;
            this.logger.warn("processes started by the agent survive SIGKILL; still watching them", { pid: this.leader, survivors: pids.filter(isLive).join(",") });
            settle();
          }
        }
        this.reaper.untrack(this.leader);
        for (const pid of this.watched) this.reaper.unwatch(pid);
      } finally {
        settle();
      }
    })();
    return settled;
  }

  /**
   * The live members now, with the watcher's roots brought up to date and dead adopted orphans
   * reaped on the way. Without /proc the group stands for the family: one pseudo-member, pid
   * `-leader`, while the group has members.
   */
  private members(): ProcessEntry[] {
    const table = readProcessTable();
    if (table === null) return isLive(-this.leader) ? [{ pid: -this.leader, ppid: 0, pgid: this.leader, sid: this.leader, zombie: false }] : [];
    const orphans: ProcessEntry[] = [];
    if (this.adopts) {
      const sid = table.find((e) => e.pid === this.self)?.sid ?? this.self;
      for (const orphan of adoptedOrphans(table, { pid: this.self, sid }, (pid) => this.reaper.owns(pid) || ownChildren.has(pid)))
        if (orphan.zombie) libc()?.reap(orphan.pid);
        else if (this.known.has(orphan.pid) || environHolds(orphan.pid, this.marker)) orphans.push(orphan);
    }
    this.orphans = new Set(orphans.map((o) => o.pid));
    const members = new Map(familyOf(table, [this.leader, ...this.orphans], new Set([this.self])).map((e) => [e.pid, e]));
    for (const orphan of orphans) members.set(orphan.pid, orphan);
    this.known = new Set(members.keys());
    this.syncRoots(table, [...members.values()]);
    return [...members.values()];
  }

  /** Registers new session leaders and adopted orphans with the watcher; forgets roots nobody refers to any more. */
  private syncRoots(table: readonly ProcessEntry[], members: readonly ProcessEntry[]): void {
    const added: number[] = [];
    for (const m of members) {
      if (m.pid === this.leader || this.watched.has(m.pid) || (m.sid !== m.pid && !this.orphans.has(m.pid))) continue;
      this.watched.add(m.pid);
      this.reaper.watch(m.pid);
      added.push(m.pid);
    }
    if (added.length > 0) this.logger.debug("watching processes the agent started", { pid: this.leader, roots: added.join(",") });
    const referenced = new Set<number>();
    for (const e of table) if (!e.zombie) referenced.add(e.pid).add(e.pgid).add(e.sid);
    for (const pid of this.watched)
      if (!referenced.has(pid)) {
        this.watched.delete(pid);
        this.reaper.unwatch(pid);
      }
  }

  /**
   * Waits until none of `pids` is live, or `ms` passed, reaping adopted orphans as they die; true
   * when all are gone. `holdOpen`: the wait keeps the process alive (see `pause`).
   */
  private async goneWithin(pids: readonly number[], ms: number, holdOpen: boolean): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      for (const pid of this.orphans) if (!isLive(pid) && libc()?.reap(pid)) this.orphans.delete(pid);
      if (!pids.some(isLive)) return true;
      if (performance.now() >= deadline) return false;
      await pause(POLL_MS, holdOpen);
    }
  }
}
