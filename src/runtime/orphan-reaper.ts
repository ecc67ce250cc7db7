/**
 * Guarantees no agent child outlives the daemon, even when the daemon is killed with SIGKILL.
 *
 * Children run in their own process groups (so a group kill reaches their descendants), which also
 * means they do not die with the daemon's group. A tiny `/bin/sh` watcher, started on the first
 * spawn, reads `+<pgid>` / `-<pgid>` lines from a pipe held only by the daemon. When that pipe
 * closes (the daemon exited, however it died), the watcher SIGKILLs every group still registered
 * and exits. It ignores terminal signals so a Ctrl-C to the daemon's group cannot skip that step.
 * The kill is spelled `kill -s KILL -- -<pgid>`: dash (Debian's /bin/sh) rejects `kill -9 -- -<pgid>`.
 */
import type { Subprocess } from "bun";

const SCRIPT = `
trap '' INT TERM HUP
groups=" "
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) groups=$(printf '%s' "$groups" | sed "s/ \${line#-} / /") ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
exit 0
`;

export class OrphanReaper {
  private proc: Subprocess<"pipe", "ignore", "ignore"> | null = null;

  /** Registers a child process group. No-op where process groups do not exist. */
  track(pgid: number): void {
    this.send(`+${pgid}\n`);
  }

  untrack(pgid: number): void {
    if (this.proc) this.send(`-${pgid}\n`);
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
      this.proc = Bun.spawn(["/bin/sh", "-c", SCRIPT], { stdin: "pipe", stdout: "ignore", stderr: "ignore", detached: true });
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
