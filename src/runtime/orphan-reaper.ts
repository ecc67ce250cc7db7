/**
 * Guarantees that no agent, and nothing an agent started, outlives the daemon, even when the
 * daemon is killed with SIGKILL.
 *
 * Agents run as leaders of their own sessions and process groups (so a group kill reaches their
 * descendants), which also means they do not die with the daemon's group. A tiny `/bin/sh` watcher,
 * started on the first spawn, reads `+<pid>` / `-<pid>` lines from a pipe held only by the daemon:
 * the roots of the families still alive. Those are the agents (an agent stays registered after it
 * exits, until the daemon's sweep found its family empty) and, registered by `agent-family.ts`, the
 * tools that lead sessions of their own and the orphans the daemon adopted, which the agent may no
 * longer connect once it or their parents are dead.
 *
 * When that pipe closes (the daemon exited, however it died), the watcher stops every registered
 * group with SIGSTOP at once, then finds the families in /proc — every root still running and every
 * process whose parent, group or session is a root or a member, as in `process-table.ts` — stopping
 * each member as it is found (so none can fork or leave meanwhile) and rescanning until nothing new
 * turns up; then it SIGKILLs them all and each registered group, and exits. It ignores terminal
 * signals so a Ctrl-C to the daemon's group cannot skip that step.
 *
 * A tool that left the agent's session less than one family scan before a daemon SIGKILL, and
 * lost its connection to the agent before the watcher looked, is not registered; it still carries
 * the family marker: every agent starts with FAMILY_MARKER_VAR=<this watcher's marker> as the first
 * entry of its environment, and what it starts inherits it. Before the scan for families, the
 * watcher stops every process whose /proc/<pid>/environ holds the marker and takes it as a root. It
 * reads the environment only up to its first newline (NUL separators are dropped as it reads), so a
 * tool that cleared or reordered its environment, with a multi-line variable ahead of the marker,
 * is not found that way. Processes of other users cannot be read, and are not the daemon's anyway;
 * nor, unless the daemon runs as root, can the built-in agent's own (it is not dumpable), which is
 * a registered root already, while the tools it runs are dumpable again and readable.
 *
 * The script uses shell builtins only and runs with an empty environment. The kill is spelled
 * `kill -s KILL -- -<pgid>`: dash (Debian's /bin/sh) rejects `kill -9 -- -<pgid>`.
 */
import type { Subprocess } from "bun";

/** The environment variable that marks every process of the daemon's agent families (see above). */
export const FAMILY_MARKER_VAR = "SVC_AGENT_FAMILY";

const SCRIPT = `
trap '' INT TERM HUP
marker="${FAMILY_MARKER_VAR}=$1"
roots=" "
while IFS= read -r line; do
  case "$line" in
    +*) roots="$roots\${line#+} " ;;
    -*) kept=" "; for r in $roots; do [ "$r" = "\${line#-}" ] || kept="$kept$r "; done; roots=$kept ;;
  esac
done
[ "$roots" = " " ] && exit 0
for g in $roots; do kill -s STOP -- "-$g" 2>/dev/null; done
for dir in /proc/[0-9]*; do
  pid=\${dir#/proc/}
  head=
  IFS= read -r head 2>/dev/null < "$dir/environ"
  case "$head" in *"$marker"*) kill -s STOP "$pid" 2>/dev/null; roots="$roots$pid " ;; esac
done
family=" "
found=1
while [ "$found" = 1 ]; do
  found=0
  for dir in /proc/[0-9]*; do
    pid=\${dir#/proc/}
    case "$family" in *" $pid "*) continue ;; esac
    [ "$pid" = "$$" ] || [ "$pid" = 1 ] && continue
    read -r stat 2>/dev/null < "$dir/stat" || continue
    set -- \${stat##*) }
    [ "$1" = Z ] && continue
    case "$roots$family" in *" $pid "*|*" $2 "*|*" $3 "*|*" $4 "*) ;; *) continue ;; esac
    kill -s STOP "$pid" 2>/dev/null
    family="$family$pid "
    found=1
  done
done
for g in $roots; do kill -s KILL -- "-$g" 2>/dev/null; done
for pid in $family; do kill -s KILL "$pid" 2>/dev/null; done
exit 0
`;

export class OrphanReaper {
  private proc: Subprocess<"pipe", "ignore", "ignore"> | null = null;
  private readonly agents = new Set<number>();
  /** This daemon's family marker, unique to it: its agents start with FAMILY_MARKER_VAR set to it. */
  readonly marker = crypto.randomUUID();

  /** Registers an agent (the leader of its session and group). No-op where process groups do not exist. */
  track(pid: number): void {
    this.agents.add(pid);
    this.send(`+${pid}\n`);
  }

  /** Forgets an agent whose family is gone. */
  untrack(pid: number): void {
    this.agents.delete(pid);
    if (this.proc) this.send(`-${pid}\n`);
  }

  /** Registers the root of a family the daemon did not start (an orphan it adopted). */
  watch(pid: number): void {
    this.send(`+${pid}\n`);
  }

  unwatch(pid: number): void {
    if (this.proc) this.send(`-${pid}\n`);
  }

  /** True for processes the daemon started itself: registered agents and the watcher. */
  owns(pid: number): boolean {
    return this.agents.has(pid) || this.proc?.pid === pid;
  }

  /** Ends the watcher (kills whatever is still registered). */
  async close(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    if (!proc) return;
    try {
      proc.stdin.end();
    } catch {
      proc.kill("SIGKILL");
    }
    await proc.exited;
  }

  private send(line: string): void {
    if (process.platform === "win32") return;
    if (this.proc === null) {
      this.proc = Bun.spawn(["/bin/sh", "-c", SCRIPT, "svc-orphan-watcher", this.marker], { env: {}, stdin: "pipe", stdout: "ignore", stderr: "ignore", detached: true });
      this.proc.unref(); // the watcher must not keep the daemon alive
    }
    try {
      this.proc.stdin.write(line);
      this.proc.stdin.flush();
    } catch {
      // a dead watcher cannot be helped; the direct stop path still kills children
    }
  }
}
