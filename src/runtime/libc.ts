/**
 * The few Linux process controls Bun has no API for, called through `bun:ffi` on the process's own
 * C library: `prctl` (dumpability, capability bounding set, child subreaper), `capget`/`capset`
 * (the inheritable capability set), `waitpid` (reaping orphans the daemon adopted) and `flock` (the data-dir lock). Elsewhere,
 * or where libc cannot be opened, `libc()` is null and callers degrade (see their comments).
 *
 * libc is opened once, on first use (~1 ms): the handle is the process's C library, not daemon
 * state, so it is cached for the life of the process.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

const PR_GET_DUMPABLE = 3;
const PR_SET_DUMPABLE = 4;
const PR_CAPBSET_READ = 23;
const PR_CAPBSET_DROP = 24;
const PR_SET_CHILD_SUBREAPER = 36;
const PR_GET_CHILD_SUBREAPER = 37;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_LOWER = 3;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;
const WNOHANG = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;

export const CAP_SYS_PTRACE = 19;

const SYMBOLS = {
  // prctl is variadic in C; Linux x64 and arm64 pass variadic integers like fixed ones.
  prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
  capget: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  capset: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
} as const;

type Symbols = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

/** The C library's names on glibc and on musl (x64, arm64). */
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

export interface Libc {
  /** PR_SET_DUMPABLE 0: the process's /proc entries become root-owned and need CAP_SYS_PTRACE to read. */
  setNotDumpable(): boolean;
  isDumpable(): boolean;
  /** Whether `cap` is in the calling thread's bounding set (what exec'd children can ever hold). */
  inBoundingSet(cap: number): boolean;
  /**
   * Removes `cap` from the bounding, inheritable and ambient sets, so that no process started from
   * now on can hold it, whatever it executes. The daemon's own effective set is left alone. Needs
   * CAP_SETPCAP (root has it); returns whether `cap` is out of the bounding set afterwards.
   */
  dropForChildren(cap: number): boolean;
  /** PR_SET_CHILD_SUBREAPER: orphaned descendants are re-parented to this process instead of init. */
  becomeChildSubreaper(): boolean;
  isChildSubreaper(): boolean;
  /** Reaps `pid` if it is an exited child of this process; true when it was reaped. */
  reap(pid: number): boolean;
  /**
   * Takes an exclusive `flock` on the open file `fd` without waiting; false when another open file
   * description holds it. The kernel drops it when the fd is closed or the process dies (SIGKILL too).
   */
  tryLockExclusive(fd: number): boolean;
}

let opened: Libc | null | undefined;

export function libc(): Libc | null {
  if (opened === undefined) opened = process.platform === "linux" ? open() : null;
  return opened;
}

function open(): Libc | null {
  for (const name of LIBC_NAMES) {
    try {
      return bind(dlopen(name, SYMBOLS).symbols);
    } catch {
      // not this libc; try the next name
    }
  }
  return null;
}

function bind(c: Symbols): Libc {
  const prctl = (option: number, arg2: number | bigint = 0, arg3: number = 0) => c.prctl(option, arg2, arg3, 0, 0);
  return {
    setNotDumpable: () => prctl(PR_SET_DUMPABLE, 0) === 0,
    isDumpable: () => prctl(PR_GET_DUMPABLE) === 1,
    inBoundingSet: (cap) => prctl(PR_CAPBSET_READ, cap) === 1,
    dropForChildren(cap) {
      // Inheritable first: a root child's permitted set is (inheritable ∪ bounding), so both must lose it.
      const header = new Uint32Array([LINUX_CAPABILITY_VERSION_3, 0]);
      const data = new Uint32Array(6); // two {effective, permitted, inheritable} words
      const word = cap >> 5;
      const bit = 1 << (cap & 31);
      if (c.capget(ptr(header), ptr(data)) === 0 && (data[word * 3 + 2]! & bit) !== 0) {
        data[word * 3 + 2]! &= ~bit;
        c.capset(ptr(header), ptr(data));
      }
      prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap);
      prctl(PR_CAPBSET_DROP, cap);
      return prctl(PR_CAPBSET_READ, cap) === 0;
    },
    becomeChildSubreaper: () => prctl(PR_SET_CHILD_SUBREAPER, 1) === 0,
    isChildSubreaper() {
      const flag = new Int32Array(1);
      return prctl(PR_GET_CHILD_SUBREAPER, ptr(flag)) === 0 && flag[0] !== 0;
    },
    reap: (pid) => c.waitpid(pid, null, WNOHANG) === pid,
    tryLockExclusive: (fd) => c.flock(fd, LOCK_EX | LOCK_NB) === 0,
  };
}
