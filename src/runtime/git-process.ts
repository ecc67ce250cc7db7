/**
 * Runs the user's `git` for the read-only git views (`workspace/git/`), bounded in bytes and time.
 *
 * The program is the one `gitPath` names (found by the views in PATH's absolute entries outside the
 * workspace, `workspace/host-executable.ts`), never looked up here. It runs as the leader of its own
 * process group (`detached`) with the environment it is given, stdin closed. stdout is read up to
 * the run's bound: one byte more and the whole group is SIGKILLed and the output marked truncated.
 * stderr is read to its end and its first GIT_STDERR_BYTES kept. Past GIT_TIMEOUT_MS the group is
 * SIGKILLed, and the pipes are read no more DRAIN_AFTER_KILL_MS later; an aborted `signal` (the
 * client went away) stops the run the same way. Its pid is in `ownChildren` until it was waited for,
 * so a subreaper's sweep never takes it for an adopted orphan and reaps it. After the leader exits, on any path, the group is signalled once more, so nothing git
 * started (a filter, a helper) outlives the run.
 */
import { GIT_OUTPUT_BYTES, GIT_STDERR_BYTES, GIT_TIMEOUT_MS, type GitRun, type RunGit } from "../workspace/git/git-run.ts";
import { ownChildren } from "./own-children.ts";

/** After a timeout's kill, how long the pipes may take to deliver their last bytes before reading stops. */
const DRAIN_AFTER_KILL_MS = 100;

function killGroup(pid: number): void {
  try {
    if (process.platform === "win32") process.kill(pid, "SIGKILL");
    else process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already empty.
  }
}

/**
 * Reads `stream` into at most `cap` bytes; calls `over` once when more arrives (and keeps draining
 * only when `drain`). Stops reading when `stop` settles: a process outside the group (one that left
 * it with setsid) may hold the pipe open after the group is gone.
 */
async function readCapped(stream: ReadableStream<Uint8Array>, cap: number, over: () => void, drain: boolean, stop: Promise<null>): Promise<{ text: string; truncated: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), stop]);
      if (next === null || next.done) break;
      if (truncated) continue;
      const room = cap - bytes;
      if (next.value.byteLength > room) {
        chunks.push(next.value.subarray(0, room));
        bytes = cap;
        truncated = true;
        over();
        if (!drain) break;
        continue;
      }
      chunks.push(next.value);
      bytes += next.value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}

/** A `RunGit` running `gitPath` with `env` (complete: nothing of the daemon's is added). */
export function gitProcessRunner(gitPath: string, env: Readonly<Record<string, string>>, timeoutMs = GIT_TIMEOUT_MS): RunGit {
  return async (args, options): Promise<GitRun> => {
    const proc = Bun.spawn([gitPath, ...args], {
      cwd: options.cwd,
      env: { ...env, ...options.env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: process.platform !== "win32",
    });
    ownChildren.add(proc.pid);
    let stoppedForOutput = false;
    let timedOut = false;
    let stopReading = (_: null) => {};
    const stop = new Promise<null>((resolve) => (stopReading = resolve));
    const stopRun = () => {
      killGroup(proc.pid);
      setTimeout(stopReading, DRAIN_AFTER_KILL_MS, null).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopRun();
    }, timeoutMs);
    const { signal } = options;
    if (signal?.aborted) stopRun();
    signal?.addEventListener("abort", stopRun, { once: true });
    try {
      const [out, err, code] = await Promise.all([
        readCapped(proc.stdout, options.maxBytes ?? GIT_OUTPUT_BYTES, () => {
          stoppedForOutput = true;
          killGroup(proc.pid);
        }, false, stop),
        readCapped(proc.stderr, GIT_STDERR_BYTES, () => {}, true, stop),
        proc.exited,
      ]);
      const stopped = stoppedForOutput || timedOut || proc.signalCode !== null;
      return { code: stopped ? null : code, stdout: out.text, stderr: err.text, truncated: out.truncated, timedOut };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stopRun);
      killGroup(proc.pid);
      void proc.exited.finally(() => ownChildren.delete(proc.pid)).catch(() => {});
    }
  };
}
