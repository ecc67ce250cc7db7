/**
 * The built-in agent's own process settings, applied once at start, after it has read its keys and
 * before it runs anything (Linux, through `runtime/libc.ts`; elsewhere nothing is applied and
 * `guardAgentProcess` says what is missing):
 *
 * - Not dumpable (PR_SET_DUMPABLE 0): the agent's /proc/<pid>/mem, environ, fd… become root-owned,
 *   so a command running as the same, non-root user cannot read the agent's memory, where its model
 *   keys are; with CAP_SYS_PTRACE kept from children (the daemon drops it when it runs as root),
 *   root commands cannot either. The agent's children are dumpable again once they exec, so
 *   their /proc entries stay readable: the command sweep's marker scan and the daemon's orphan
 *   watcher, which looks for its family marker in /proc/<pid>/environ, still read the tools'; the
 *   watcher has the agent itself by pid. It writes no core dumps.
 * - Child subreaper (PR_SET_CHILD_SUBREAPER): a process a command started whose parent dies is
 *   re-parented to the agent, not to init (nor to the daemon), so the agent can end it with its
 *   command (`command-sweep.ts`). Should the agent die first, such processes go on up to the
 *   daemon, itself a subreaper, whose family sweep ends them.
 */
import { libc } from "../runtime/libc.ts";

/** Applies both settings; returns a sentence for each that could not be applied. */
export function guardAgentProcess(): string[] {
  const c = libc();
  if (c === null) return [`cannot make the agent non-dumpable or a child subreaper on ${process.platform}: its commands' detached processes end only with their process group, and same-user commands may read its memory`];
  const gaps: string[] = [];
  if (!(c.setNotDumpable() && !c.isDumpable())) gaps.push("could not make the agent non-dumpable: same-user commands may read its memory");
  if (!(c.becomeChildSubreaper() && c.isChildSubreaper())) gaps.push("could not make the agent a child subreaper: detached processes of its commands that clear their environment outlive them");
  return gaps;
}
