/**
 * Keeps the daemon's secrets (its bearer token, and the credentials in its environment) out of
 * reach of the processes it starts. Agents and their tools run as the same user as the daemon; with
 * the token, a prompt-injected agent could vote on its own permission requests, and with the
 * model keys a command could spend them. Three layers, Linux only, applied once at boot before any
 * spawn:
 *
 * 1. The token's strings in the startup blocks are blanked (`startup-strings.ts`), so
 *    /proc/<pid>/environ and /proc/<pid>/cmdline (`--token`) no longer carry it; so are the
 *    `NAME=value` entries of the environment's credentials (`environmentSecrets`: the scrub list
 *    and the built-in agent's key variables), which the daemon has copied by then. The kernel lets
 *    a root child, or one holding CAP_SYS_ADMIN or CAP_PERFMON, read `environ` even of a
 *    non-dumpable process, so this layer is what protects them there.
 * 2. PR_SET_DUMPABLE 0: /proc/<pid>/mem, environ, maps, fd… become root-owned and need
 *    CAP_SYS_PTRACE; a same-user, non-root child can no longer read the daemon's memory or attach.
 * 3. CAP_SYS_PTRACE leaves the bounding and inheritable sets (when the daemon may drop it, e.g. as
 *    root), so no child, even root, holds it after exec: /proc/<pid>/mem, process_vm_readv and
 *    ptrace of the daemon are refused.
 *
 * What stays open: a child running as root keeps CAP_SYS_ADMIN, CAP_SYS_MODULE, CAP_SYS_RAWIO and
 * CAP_BPF, with which it can read any memory (kernel modules, /dev/mem, BPF). Run the daemon as an
 * ordinary user. Elsewhere than Linux nothing is applied (macOS shows same-user environments to
 * `ps -E`): the shield reports what it could do and the caller logs it.
 *
 * A side effect of layer 2: the daemon writes no core dumps.
 */
import { isSecretName } from "../config/secret-names.ts";
import { CAP_SYS_PTRACE, libc } from "./libc.ts";
import { blankStartupSecrets } from "./startup-strings.ts";

export interface ShieldOutcome {
  /** Layers in place, for the boot log. */
  readonly applied: readonly string[];
  /** Layers that should be in place here but are not, one sentence each. */
  readonly gaps: readonly string[];
}

/**
 * The `NAME=value` strings of `env`'s credentials: names on the scrub list (`secret-names.ts`) or
 * among `keyNames`. Blanked whole, they vanish from /proc/<pid>/environ (and from libc's `getenv`;
 * the daemon reads its environment once, at boot). Pure.
 */
export function environmentSecrets(env: Readonly<Record<string, string>>, keyNames: ReadonlySet<string>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== "" && (isSecretName(name) || keyNames.has(name)))
    .map(([name, value]) => `${name}=${value}`);
}

export function shieldSecrets(secrets: readonly string[]): ShieldOutcome {
  if (process.platform !== "linux") return { applied: [], gaps: [`the token cannot be hidden from same-user processes on ${process.platform}`] };
  const applied: string[] = [];
  const gaps: string[] = [];
  const blanked = blankStartupSecrets(secrets);
  if (blanked === null) gaps.push("could not blank the token in /proc/self/environ and cmdline");
  else if (blanked > 0) applied.push("startup strings blanked");
  const c = libc();
  if (c === null) gaps.push("could not open libc: the daemon stays dumpable and children may hold CAP_SYS_PTRACE");
  else {
    if (c.setNotDumpable() && !c.isDumpable()) applied.push("not dumpable");
    else gaps.push("could not make the daemon non-dumpable");
    // Without CAP_SETPCAP (not root) the drop fails, but then children cannot gain the capability either.
    if (!c.inBoundingSet(CAP_SYS_PTRACE) || c.dropForChildren(CAP_SYS_PTRACE)) applied.push("children without CAP_SYS_PTRACE");
    else if (process.getuid?.() === 0) gaps.push("running as root but could not drop CAP_SYS_PTRACE for children");
  }
  return { applied, gaps };
}
