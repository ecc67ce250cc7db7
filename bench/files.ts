/**
 * `bun bench/files.ts [--quick] [--binary <path>]`: the workspace file routes against a real
 * `svc serve` child on a generated workspace.
 *
 * - latency: `GET /file` of a 100 KB text file and `GET /glob` of `**\/*.ts` over a 10,000-file tree
 *   (default `maxResults`, which stops at 5,000, and `maxResults=50000`, which walks all of it):
 *   sequential keep-alive requests, median and p99 over N runs, printed next to the issue's targets;
 * - memory: one request of each glob/list scenario on a fresh daemon, its peak RSS (sampled from
 *   /proc every 2 ms) above the RSS after a warm-up request; the median over a few daemons. Growing
 *   the tree ten-fold at a fixed cap should not move the peak; raising the cap should.
 *
 * Timing never fails it. `runFilesBench()` is exported for `bench/run.ts` to include.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cleanUp, cleanUpOnSignals, scratchDir, stopProcess } from "./lib/procs.ts";
import { residentMemory } from "./lib/rss.ts";
import { launch, REPO_ROOT, svcCommand, type Launched } from "./lib/servers.ts";
import { median, percentile } from "./lib/stats.ts";
import { fmt, table } from "./lib/table.ts";

export const FILE_TARGETS = {
  /** `GET /file` of a 100 KB text file, median ms (at most). */
  fileReadP50Ms: 2,
  /** `GET /glob` of `**\/*.ts` over 10,000 files, median ms (at most). */
  globP50Ms: 50,
} as const;

const SETTINGS = {
  full: { fileRuns: 500, globRuns: 40, memoryDaemons: 3 },
  quick: { fileRuns: 100, globRuns: 10, memoryDaemons: 1 },
};

export interface LatencyRow {
  readonly what: string;
  readonly runs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** What one response held (bytes of content or matches), to show the request did its work. */
  readonly note: string;
}

export interface MemoryRow {
  readonly what: string;
  /** Medians over the daemons measured. */
  readonly baselineMb: number;
  readonly peakMb: number;
  readonly deltaMb: number;
}

export interface FilesBenchSummary {
  readonly latency: LatencyRow[];
  readonly memory: MemoryRow[];
  readonly verdicts: { what: string; measured: number; target: number; met: boolean }[];
}

/** 100 KB of source-like text. */
function textFile(): string {
  const line = "export function example(value: number): number { return value * 2 + 1; } // padding\n";
  return line.repeat(Math.ceil(100_000 / line.length)).slice(0, 100_000);
}

/** `dirs` packages of `perDir` .ts files each, two levels deep, plus a non-matching file per package. */
function generateTree(root: string, dirs: number, perDir: number): void {
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `pkg${d}`, "src");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(root, `pkg${d}`, "README.md"), "");
    for (let f = 0; f < perDir; f++) writeFileSync(join(dir, `module${f}.ts`), "");
  }
}

function generateWorkspace(quick: boolean): string {
  const ws = scratchDir("files-ws");
  writeFileSync(join(ws, "text-100k.txt"), textFile());
  writeFileSync(join(ws, ".gitignore"), "node_modules/\ndist/\n*.log\n");
  generateTree(join(ws, "tree10k"), 100, 100);
  generateTree(join(ws, "tree100k"), quick ? 300 : 1000, 100);
  const wide = join(ws, "wide");
  mkdirSync(wide);
  for (let i = 0; i < (quick ? 20_000 : 50_000); i++) writeFileSync(join(wide, `entry-${i}.txt`), "");
  return ws;
}

async function startSvc(ws: string, binary: string | null): Promise<Launched> {
  return await launch({
    name: "svc",
    cmd: [...svcCommand(binary), "serve", "--port", "0", "--workspace", ws, "--log-level", "warn"],
    env: { PATH: process.env.PATH ?? "", HOME: scratchDir("home"), SVC_HOME: scratchDir("svc-home") },
    stderrPath: null,
  });
}

async function get(url: string): Promise<{ status: number; body: { content?: string; count?: number; entries?: unknown[]; truncated?: boolean } }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as never };
}

async function time(url: string, runs: number): Promise<{ samples: number[]; last: Awaited<ReturnType<typeof get>> }> {
  let last = await get(url); // warm-up
  if (last.status !== 200) throw new Error(`${url} answered ${last.status}: ${JSON.stringify(last.body)}`);
  for (let i = 0; i < Math.min(20, runs); i++) await get(url);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    last = await get(url);
    samples.push(performance.now() - started);
  }
  return { samples, last };
}

/** VmRSS of `pid` in MB, NaN where /proc is not available. */
const rssMb = (pid: number) => residentMemory(pid)?.rssMb ?? Number.NaN;

/** Peak VmRSS of `pid` while `work` runs, sampled every 2 ms. */
async function peakRss(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 2);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssMb(pid));
}

export async function runFilesBench(options: { quick: boolean; binary: string | null; progress: (text: string) => void }): Promise<FilesBenchSummary> {
  const settings = SETTINGS[options.quick ? "quick" : "full"];
  options.progress("generating the workspace (100 KB file, 10k- and 100k-file trees, a wide directory)…");
  const ws = generateWorkspace(options.quick);

  const latency: LatencyRow[] = [];
  const svc = await startSvc(ws, options.binary);
  try {
    options.progress(`GET /file ×${settings.fileRuns}…`);
    const file = await time(`${svc.url}/file?path=text-100k.txt`, settings.fileRuns);
    latency.push({ what: "GET /file (100 KB text)", runs: settings.fileRuns, p50Ms: median(file.samples), p99Ms: percentile(file.samples, 99), note: `${file.last.body.content?.length} chars` });
    for (const [label, query] of [
      ["GET /glob **/*.ts, 10k files, default maxResults", ""],
      ["GET /glob **/*.ts, 10k files, maxResults=50000", "&maxResults=50000"],
    ] as const) {
      options.progress(`${label} ×${settings.globRuns}…`);
      const glob = await time(`${svc.url}/glob?pattern=${encodeURIComponent("**/*.ts")}&cwd=tree10k${query}`, settings.globRuns);
      latency.push({ what: label, runs: settings.globRuns, p50Ms: median(glob.samples), p99Ms: percentile(glob.samples, 99), note: `${glob.last.body.count} matches${glob.last.body.truncated ? " (truncated)" : ""}` });
    }
  } finally {
    await stopProcess(svc.proc);
  }

  const scenarios: [string, string][] = [
    ["list wide/ (50k entries; cap 2000)", "/list?path=wide"],
    ["glob 10k tree, maxResults=100", "/glob?pattern=**%2F*.ts&cwd=tree10k&maxResults=100"],
    ["glob 100k tree, maxResults=100", "/glob?pattern=**%2F*.ts&cwd=tree100k&maxResults=100"],
    ["glob 10k tree, no match (walks it all)", "/glob?pattern=**%2F*.nomatch&cwd=tree10k"],
    ["glob 100k tree, no match (walks it all)", "/glob?pattern=**%2F*.nomatch&cwd=tree100k"],
    ["glob 100k tree, maxResults=5000", "/glob?pattern=**%2F*.ts&cwd=tree100k&maxResults=5000"],
    ["glob 100k tree, maxResults=50000", "/glob?pattern=**%2F*.ts&cwd=tree100k&maxResults=50000"],
  ];
  if (options.quick) scenarios[0]![0] = "list wide/ (20k entries; cap 2000)";
  const memory: MemoryRow[] = [];
  for (const [what, path] of scenarios) {
    options.progress(`memory: ${what}…`);
    const baselines: number[] = [];
    const peaks: number[] = [];
    for (let run = 0; run < settings.memoryDaemons; run++) {
      const fresh = await startSvc(ws, options.binary);
      try {
        await get(`${fresh.url}/glob?pattern=*.txt`); // load the route code before the baseline
        await Bun.sleep(200); // let the start-up settle (measurement only, not correctness)
        baselines.push(rssMb(fresh.proc.pid));
        peaks.push(
          await peakRss(fresh.proc.pid, async () => {
            const r = await get(fresh.url + path);
            if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
          }),
        );
      } finally {
        await stopProcess(fresh.proc);
      }
    }
    memory.push({ what, baselineMb: median(baselines), peakMb: median(peaks), deltaMb: median(peaks.map((p, i) => p - baselines[i]!)) });
  }

  const fileP50 = latency[0]!.p50Ms;
  const globP50 = latency[1]!.p50Ms;
  return {
    latency,
    memory,
    verdicts: [
      { what: "GET /file 100 KB, median ms", measured: fileP50, target: FILE_TARGETS.fileReadP50Ms, met: fileP50 <= FILE_TARGETS.fileReadP50Ms },
      { what: "GET /glob **/*.ts over 10k files, median ms", measured: globP50, target: FILE_TARGETS.globP50Ms, met: globP50 <= FILE_TARGETS.globP50Ms },
    ],
  };
}

export function renderFilesReport(summary: FilesBenchSummary): string {
  const lines = [
    "Workspace file routes (svc serve child, sequential keep-alive requests)",
    table(
      ["request", "runs", "p50", "p99", "response"],
      summary.latency.map((r) => [r.what, String(r.runs), fmt.ms(r.p50Ms), fmt.ms(r.p99Ms), r.note]),
    ),
    "",
    "Peak RSS during one glob/list request (fresh daemons, medians; above the RSS after one small request)",
    table(
      ["scenario", "baseline", "peak", "peak - baseline"],
      summary.memory.map((r) => [r.what, fmt.mb(r.baselineMb), fmt.mb(r.peakMb), fmt.mb(r.deltaMb)]),
    ),
    "",
    "Targets (never fail the run)",
    table(
      ["what", "measured", "target", "met"],
      summary.verdicts.map((v) => [v.what, fmt.ms(v.measured), `≤ ${fmt.ms(v.target)}`, v.met ? "yes" : "NO"]),
    ),
  ];
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: { quick: { type: "boolean", default: false }, binary: { type: "string" } },
    strict: true,
  });
  cleanUpOnSignals();
  const progress = (text: string) => process.stderr.write(`bench/files: ${text}\n`);
  try {
    const before = loadavg()[0]!;
    const summary = await runFilesBench({ quick: values.quick, binary: values.binary ?? null, progress });
    process.stdout.write(renderFilesReport(summary));
    process.stdout.write(`\n  load average ${before.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after; bun ${Bun.version}; repo ${REPO_ROOT}\n`);
  } catch (err) {
    process.stderr.write(`bench/files: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
