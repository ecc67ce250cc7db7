/**
 * Every process the bench starts goes through `spawnTracked`, so it can be stopped by PID when its
 * step ends, and all at once (still by PID) when the bench exits, fails or is interrupted.
 * Also owns the bench's scratch directory (workspaces, SVC_HOMEs, logs), removed on exit.
 */
import type { SpawnOptions, Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How long a process gets between SIGTERM and SIGKILL. */
const STOP_GRACE_MS = 3000;

const live = new Set<Subprocess>();
let scratchRoot: string | null = null;

export function spawnTracked<const Out extends SpawnOptions.Readable, const Err extends SpawnOptions.Readable>(
  cmd: string[],
  options: Omit<SpawnOptions.SpawnOptions<"ignore", Out, Err>, "stdin">,
): Subprocess<"ignore", Out, Err> {
  const proc = Bun.spawn<"ignore", Out, Err>(cmd, { ...options, stdin: "ignore" });
  live.add(proc);
  void proc.exited.then(() => live.delete(proc));
  return proc;
}

/** SIGTERM, then SIGKILL if it is still there after the grace period; resolves once it has exited. */
export async function stopProcess(proc: Subprocess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await proc.exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((proc) => stopProcess(proc)));
}

/** A fresh directory under the bench's scratch root (created on first use). */
export function scratchDir(name: string): string {
  scratchRoot ??= mkdtempSync(join(tmpdir(), "svc-bench-"));
  return mkdtempSync(join(scratchRoot, `${name}-`));
}

/** Stops every tracked process and removes the scratch root. Safe to call more than once. */
export async function cleanUp(): Promise<void> {
  await stopAll();
  if (scratchRoot !== null) rmSync(scratchRoot, { recursive: true, force: true });
  scratchRoot = null;
}

/** On Ctrl-C or SIGTERM: clean up, then exit with the conventional 128 + signal code. */
export function cleanUpOnSignals(): void {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const)
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping started processes\n`);
      void cleanUp().finally(() => process.exit(code));
    });
}
