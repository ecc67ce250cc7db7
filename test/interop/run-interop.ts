/**
 * `npm run test:interop`: installs every agent into the `.interop/` cache (`install-agents.ts`, in
 * parallel, skipping what is there), then runs each agent's scenario file (`<agent>.interop.ts`,
 * builtin as the control) and the reference's web UI in chromium (`reference-ui.interop.ts`) against
 * the sources and, when it has been built (`dist/svc`, or SVC_TEST_BINARY), against the compiled
 * binary, and the reference agent's own suites against the sources; one run at a time, each under SUITE_DEADLINE_MS. Each run happens inside a network namespace holding only loopback when the host
 * allows one (`unshare -n`, as root or through a user namespace), so an agent that reaches past the
 * loopback mock fails instead of passing by luck; without one the line says so.
 *
 * Prints one line per agent: `agent <name>: pass` (every target), `agent <name>: fail: [<target>] <reason>`, or
 * `agent <name>: cannot-run-offline: <cause>` when its package is not in the cache and cannot be
 * installed (the registry is out of reach); `suite <name>: pass|fail: <reason>` for the others. Exits
 * non-zero if any run failed.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { INSTALLABLE } from "./install-agents.ts";
import { childrenOf } from "../helpers/pids.ts";

/** One suite's bound: five scenario steps of at most TURN_MS (60 s) each, plus start-up. */
const SUITE_DEADLINE_MS = 360_000;
/** The output kept per run for the failure reason (the tail matters; earlier output is dropped). */
const OUTPUT_TAIL_CHARS = 64 * 1024;

const HERE = import.meta.dir;
const AGENTS = ["builtin", ...INSTALLABLE] as const;
const SUITES = ["qwen-agent", "qwen-persistence"] as const;
/** Suites of the reference package that run against every target (they need it installed, not its agent). */
const EVERY_TARGET_SUITES = ["reference-ui"] as const;
/**
 * Suites run a second time after a failure: the reference's UI in a browser, whose flow depends on
 * the page's own timers. A pass on the second run still prints the first failure (`pass after a
 * retry`), so a daemon fault seen once stays on record; a second failure fails the run.
 */
const RETRIED_SUITES: ReadonlySet<string> = new Set(["reference-ui"]);
const BINARY = resolve(process.env.SVC_TEST_BINARY || join(HERE, "..", "..", "dist", "svc"));
/** The daemons each agent's scenario runs against (`test/helpers/test-target.ts`). */
const TARGETS: Array<{ name: string; env: Record<string, string> }> = [
  { name: "source", env: { SVC_TEST_TARGET: "source" } },
  ...(existsSync(BINARY) ? [{ name: "binary", env: { SVC_TEST_TARGET: "binary", SVC_TEST_BINARY: BINARY } }] : []),
];

/** The command prefix that runs a program with loopback only, or null (with the reason) when the host has no way. */
async function isolation(): Promise<{ prefix: string[] } | { prefix: null; reason: string }> {
  for (const flags of [["-n"], ["-r", "-n"]]) {
    const prefix = ["unshare", ...flags, "sh", "-c", 'ip link set lo up && exec "$0" "$@"'];
    try {
      const probe = Bun.spawn([...prefix, "true"], { stdout: "ignore", stderr: "pipe" });
      if ((await probe.exited) === 0) return { prefix };
    } catch {
      // unshare is not installed
    }
  }
  return { prefix: null, reason: "no network namespace (unshare -n / -rn failed): loopback-only is not enforced" };
}

/** Kills `pid` and everything below it, deepest first. */
function killFamily(pid: number): void {
  for (const child of childrenOf(pid)) killFamily(child);
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Runs one test file; resolves to null on success or the failure reason. */
async function runFile(file: string, prefix: string[] | null, env: Record<string, string>): Promise<string | null> {
  const argv = [process.execPath, "test", "--timeout", "120000", join(HERE, file)];
  const proc = Bun.spawn([...(prefix ?? []), ...argv], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const text = decoder.decode(read.value, { stream: true });
      process.stderr.write(text);
      output = (output + text).slice(-OUTPUT_TAIL_CHARS);
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killFamily(proc.pid);
  }, SUITE_DEADLINE_MS);
  const [code] = await Promise.all([proc.exited, collect(proc.stdout), collect(proc.stderr)]);
  clearTimeout(timer);
  if (timedOut) return `no result within ${SUITE_DEADLINE_MS / 1000} s`;
  if (code === 0) return null;
  const failed = output.split("\n").find((l) => l.startsWith("(fail)"))?.replace(/^\(fail\) /, "");
  const error = output.split("\n").find((l) => l.startsWith("error:"));
  // The daemon's own error lines, when the suite printed them, say why an answer failed.
  const daemonErrors = output.split("\n").filter((l) => /\bERROR\b/.test(l)).slice(0, 3).map((l) => l.trim());
  return [failed, error, ...daemonErrors].filter(Boolean).join(": ") || `bun test exited ${code}`;
}

const install = Bun.spawn([process.execPath, join(HERE, "install-agents.ts")], { stdout: "pipe", stderr: "inherit" });
const installLog = await new Response(install.stdout).text();
await install.exited;
process.stderr.write(installLog);
const installError = new Map<string, string>();
for (const m of installLog.matchAll(/^install (\S+): (.*)$/gm)) if (m[2] !== "ok") installError.set(m[1]!, m[2]!);

const net = await isolation();
const lines: string[] = [];
let failed = 0;
if (net.prefix === null) lines.push(`note: ${net.reason}`);
lines.push(`note: targets ${TARGETS.map((t) => t.name).join(", ")}`);
for (const agent of AGENTS) {
  const missing = installError.get(agent);
  if (missing) {
    lines.push(`agent ${agent}: cannot-run-offline: not installed and the install failed (${missing})`);
    continue;
  }
  const reasons: string[] = [];
  for (const target of TARGETS) {
    const reason = await runFile(`${agent}.interop.ts`, net.prefix, target.env);
    if (reason) reasons.push(`[${target.name}] ${reason}`);
  }
  if (reasons.length > 0) failed++;
  lines.push(`agent ${agent}: ${reasons.length === 0 ? "pass" : `fail: ${reasons.join("; ")}`}`);
}
for (const suite of EVERY_TARGET_SUITES) {
  if (installError.has("qwen-code")) continue;
  const reasons: string[] = [];
  const retried: string[] = [];
  for (const target of TARGETS) {
    let reason = await runFile(`${suite}.interop.ts`, net.prefix, target.env);
    if (reason && RETRIED_SUITES.has(suite)) {
      retried.push(`[${target.name}] ${reason}`);
      reason = await runFile(`${suite}.interop.ts`, net.prefix, target.env);
    }
    if (reason) reasons.push(`[${target.name}] ${reason}`);
  }
  if (reasons.length > 0) failed++;
  const firstFailures = retried.length === 0 ? "" : ` (first run failed: ${retried.join("; ")})`;
  lines.push(`suite ${suite}: ${reasons.length === 0 ? (retried.length === 0 ? "pass" : "pass after a retry") : "fail"}${reasons.length === 0 ? "" : `: ${reasons.join("; ")}`}${firstFailures}`);
}
for (const suite of SUITES) {
  if (installError.has("qwen-code")) continue;
  const reason = await runFile(`${suite}.interop.ts`, net.prefix, TARGETS[0]!.env);
  if (reason) failed++;
  lines.push(`suite ${suite}: ${reason === null ? "pass" : `fail: ${reason}`}`);
}
console.log(lines.join("\n"));
if (failed > 0) process.exit(1);
