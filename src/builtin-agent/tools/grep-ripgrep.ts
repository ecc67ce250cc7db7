/**
 * The ripgrep grep engine (used when the user's `rg` is on the shell PATH): its regex engine
 * runs in linear time, in its own process. It searches only the files the caller names (found by
 * the workspace's own walk, so ignore rules, links and confinement are the built-in search's),
 * never walks by itself, reads no config file (`--no-config`), and is killed on cancel or when the
 * time budget runs out. Its JSON output is read until MATCHES are enough, then it is stopped.
 *
 * Files are passed as arguments in batches of at most ARGS_BYTES_PER_RUN bytes (under any
 * system's argument limit). A file rg finds binary is left out, as the built-in reads leave it out.
 *
 * Bounds: rg reads no file over TEXT_READ_CAP_BYTES (`--max-filesize`), so one JSON line of its
 * output (one matching line) is at most a few times that; the matches of the file being read are
 * held until its `end` message, and never more than the `max` the caller asks for.
 */
import { TEXT_READ_CAP_BYTES } from "../../workspace/file-limits.ts";
import { GREP_TIME_BUDGET_MS, GrepStopped } from "./grep-worker.ts";

export interface GrepHit {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

/** Bytes of file names passed to one rg run. */
const ARGS_BYTES_PER_RUN = 64 * 1024;
/** Bytes of rg's stderr kept (for its error message); the rest is dropped. */
const STDERR_CAP_BYTES = 4096;

interface RgMessage {
  type: string;
  data: { path?: { text?: string }; lines?: { text?: string }; line_number?: number; binary_offset?: number | null };
}

/** Checks `pattern` with ripgrep itself (its syntax is not JavaScript's); the error it gives, or null. */
export async function ripgrepPatternError(rg: string, env: Readonly<Record<string, string>>, pattern: string): Promise<string | null> {
  const proc = Bun.spawn([rg, "--no-config", "--quiet", "--regexp", pattern, "--", "/dev/null"], { env: { ...env }, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return proc.exitCode === 2 ? stderr.slice(0, STDERR_CAP_BYTES).trim() : null;
}

/** Matching lines of `files` (workspace-relative, searched from `root`), at most `max`. */
export async function ripgrepSearch(rg: string, root: string, env: Readonly<Record<string, string>>, pattern: string, files: readonly string[], max: number, signal: AbortSignal): Promise<GrepHit[]> {
  const hits: GrepHit[] = [];
  const deadline = Date.now() + GREP_TIME_BUDGET_MS;
  for (let start = 0; start < files.length && hits.length < max; ) {
    const batch: string[] = [];
    for (let bytes = 0; start < files.length && (batch.length === 0 || bytes + files[start]!.length < ARGS_BYTES_PER_RUN); start++) {
      bytes += files[start]!.length + 1;
      batch.push(files[start]!);
    }
    await runBatch(rg, root, env, pattern, batch, max - hits.length, deadline, signal, hits);
  }
  return hits;
}

async function runBatch(rg: string, root: string, env: Readonly<Record<string, string>>, pattern: string, batch: string[], max: number, deadline: number, signal: AbortSignal, hits: GrepHit[]): Promise<void> {
  if (signal.aborted) throw new GrepStopped("cancelled");
  const args = [rg, "--json", "--no-config", "--no-follow", "--max-filesize", String(TEXT_READ_CAP_BYTES), "--regexp", pattern, "--", ...batch];
  const proc = Bun.spawn(args, { cwd: root, env: { ...env }, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  let stopped: string | null = null;
  const stop = (why: string) => {
    stopped ??= why;
    proc.kill("SIGKILL");
  };
  const timer = setTimeout(() => stop(`the search took longer than ${GREP_TIME_BUDGET_MS / 1000} s; narrow it with glob or path`), Math.max(0, deadline - Date.now()));
  const onAbort = () => stop("cancelled");
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    // One file's matches are held until its `end` says whether it was binary.
    let fileHits: GrepHit[] = [];
    let taken = 0;
    let rest = "";
    const decoder = new TextDecoder();
    const reader = proc.stdout.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const chunk = next.value;
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as RgMessage;
        if (message.type === "begin") fileHits = [];
        else if (message.type === "match" && taken + fileHits.length < max)
          fileHits.push({ path: message.data.path?.text ?? "", line: message.data.line_number ?? 0, text: (message.data.lines?.text ?? "").replace(/\r?\n$/, "") });
        else if (message.type === "end") {
          if (message.data.binary_offset == null) {
            hits.push(...fileHits);
            taken += fileHits.length;
          }
          fileHits = [];
        }
      }
      if (taken >= max) stop("enough");
    }
    // Exit 2 (an unreadable file) is not a failure: such a file is skipped, as the built-in reads skip it; the pattern was checked before.
    await proc.exited;
    if (stopped !== null && stopped !== "enough") throw new GrepStopped(stopped);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    proc.kill("SIGKILL");
  }
}
