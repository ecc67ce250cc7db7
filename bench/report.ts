/**
 * The bench's result: `BenchSummary` is what `.bench/last.json` holds, and `renderReport` turns it
 * into the tables printed on stdout.
 */
import { renderEvents, type EventsResult } from "./events.ts";
import { renderFilesReport, type FilesBenchSummary } from "./files.ts";
import { renderJournal, type JournalResult } from "./journal.ts";
import { renderWeb, type WebResult } from "./web.ts";
import { BARE_NAME, SVC_BINARY } from "./lib/servers.ts";
import { fmt, table } from "./lib/table.ts";
import { REFERENCE, type Verdict } from "./lib/targets.ts";
import type { RssResult } from "./rss.ts";
import { renderSessions, type SessionsResult } from "./sessions.ts";
import type { StartupResult } from "./startup.ts";
import type { ThroughputResult } from "./throughput.ts";
import type { BuiltinAgentResult } from "./builtin-agent.ts";
import type { JournalCost } from "./journal.ts";
import type { VersionResult } from "./version.ts";

export interface BenchSummary {
  readonly finishedAt: string;
  /** Wall time of the whole run, build included. */
  readonly elapsedSeconds: number;
  readonly mode: "full" | "quick";
  readonly sections: readonly string[];
  readonly machine: {
    readonly cpus: number;
    readonly platform: string;
    readonly bun: string;
    /** 1-minute load average before and after: other work on the machine skews every figure. */
    readonly loadAverageBefore: number;
    readonly loadAverageAfter: number;
  };
  readonly binary: { readonly path: string; readonly origin: string; readonly bytes: number };
  /** The bare compiled `Bun.serve` built in this run: the runtime's share of any compiled binary. */
  readonly bareBinaryBytes: number;
  /** The `--baseline` binary, when given. */
  readonly baseline: { readonly path: string; readonly bytes: number } | null;
  readonly startup: { readonly runs: number; readonly results: readonly StartupResult[] } | null;
  readonly version: VersionResult | null;
  readonly builtinAgent: BuiltinAgentResult | null;
  /** Journal on vs off event throughput (also part of `journal` when the whole section ran). */
  readonly journalCost: JournalCost | null;
  readonly rss: { readonly runs: number; readonly settleMs: number; readonly results: readonly RssResult[] } | null;
  readonly throughput:
    | (ThroughputResult & {
        readonly generator: string;
        readonly fallback: boolean;
        readonly warmupSeconds: number;
        readonly durationSeconds: number;
        readonly rounds: number;
      })
    | null;
  readonly sessions: SessionsResult | null;
  readonly events: EventsResult | null;
  readonly files: FilesBenchSummary | null;
  readonly journal: JournalResult | null;
  readonly web: WebResult | null;
  readonly verdicts: readonly Verdict[];
}

/** Load averages above this are called out: the figures then say as much about the neighbours. */
const BUSY_LOAD_AVERAGE = 0.5;

const MIB = 1024 * 1024;

function header(s: BenchSummary): string {
  const m = s.machine;
  const lines = [
    `svc bench (${s.mode}; sections: ${s.sections.join(", ")}), ${s.finishedAt}, ${s.elapsedSeconds.toFixed(1)} s`,
    `machine: ${m.cpus} cores, ${m.platform}, bun ${m.bun}; load average ${m.loadAverageBefore.toFixed(2)} before, ${m.loadAverageAfter.toFixed(2)} after`,
    `binary: ${s.binary.origin}`,
  ];
  if (Math.max(m.loadAverageBefore, m.loadAverageAfter) > BUSY_LOAD_AVERAGE)
    lines.push(`note: the machine was busy with other work during the run; figures are noisier and lower than on an idle machine`);
  return lines.join("\n");
}

function binarySection(s: BenchSummary): string {
  const row = (name: string, b: number) => [name, fmt.int(b), (b / 1e6).toFixed(1), (b / MIB).toFixed(1)];
  const rows = [row("svc", s.binary.bytes), ...(s.baseline === null ? [] : [row(`baseline (${s.baseline.path})`, s.baseline.bytes)]), row(BARE_NAME, s.bareBinaryBytes)];
  const app = s.binary.bytes - s.bareBinaryBytes;
  return `Binary size\n${table(["binary", "bytes", "MB", "MiB"], rows)}\n  application bytes (svc − bare): ${fmt.int(app)} (${(app / 1e6).toFixed(2)} MB)`;
}

function startupSection(startup: NonNullable<BenchSummary["startup"]>): string {
  const bare = startup.results.find((r) => r.name === BARE_NAME);
  const rows = startup.results.map((r) => [
    r.name,
    fmt.ms(r.medianMs),
    fmt.ms(r.p90Ms),
    fmt.ms(r.listeningMedianMs),
    r.cpuMedianMs === null ? "?" : fmt.ms(r.cpuMedianMs),
    bare === undefined ? "" : `${fmt.ratio(r.medianMs / bare.medianMs)}×`,
  ]);
  return [
    `Cold start: spawn → first GET /health 200 (${startup.runs} runs each, interleaved, after one untimed run)`,
    `  (the baseline is bench/servers/bare-serve.ts compiled with bun build --compile in this run; server CPU = user + system of all its threads)`,
    table(["server", "median", "p90", "to stdout line (median)", "server CPU used (median)", "÷ bare (median)"], rows),
  ].join("\n");
}

function versionSection(v: VersionResult): string {
  return [
    `svc --version: spawn → exit (${v.runs} runs each, interleaved, after one untimed run)`,
    table(["binary", "median", "÷ bare"], [
      ["svc (binary) --version", fmt.ms(v.svcMedianMs), `${fmt.ratio(v.ratio)}×`],
      ["bare compiled version print (baseline)", fmt.ms(v.bareMedianMs), "1.00×"],
    ]),
  ].join("\n");
}

function builtinAgentSection(a: BuiltinAgentResult): string {
  return [
    `Built-in agent (svc --acp, compiled binary, mock model; medians of ${a.runs} runs)`,
    table(
      ["spawn → initialize", "idle RSS (1 session, not prompted)", "RSS after 3 turns", "daemon spawn → first POST /session answered"],
      [[fmt.ms(a.initMedianMs), fmt.mb(a.idleRssMb), fmt.mb(a.afterTurnsRssMb), fmt.ms(a.firstSessionMedianMs)]],
    ),
  ].join("\n");
}

function journalCostSection(j: JournalCost): string {
  return [
    `Journal cost: @stream ${j.events} to one subscriber, ${j.rounds} rounds, journal off and on interleaved (medians)`,
    table(["journal off ev/s", "journal on ev/s", "cost (≤ 10%)"], [[fmt.int(Math.round(j.offEventsPerSecond)), fmt.int(Math.round(j.onEventsPerSecond)), `${(j.cost * 100).toFixed(1)}%`]]),
  ].join("\n");
}

function rssSection(rss: NonNullable<BenchSummary["rss"]>): string {
  const bare = rss.results.find((r) => r.name === BARE_NAME);
  const rows = rss.results.map((r) => [
    r.name,
    fmt.mb(r.medianMb),
    fmt.mb(r.anonMedianMb),
    fmt.mb(r.fileMedianMb),
    r.samplesMb.map((x) => x.toFixed(1)).join(" "),
    bare === undefined ? "" : `${fmt.ratio(r.medianMb / bare.medianMb)}×`,
  ]);
  return [
    `Idle RSS: VmRSS after 20× /health + 20× /capabilities and ${rss.settleMs} ms idle (${rss.runs} runs each)`,
    table(["server", "VmRSS", "anonymous", "file-backed", "VmRSS samples (MB)", "÷ bare"], rows),
    `  (medians; file-backed pages are mostly the executable's own code, shared with the page cache)`,
  ].join("\n");
}

function throughputSection(t: NonNullable<BenchSummary["throughput"]>): string {
  const bare50 = t.rows.find((r) => r.server === BARE_NAME && r.concurrency === 50);
  const rows = t.rows.map((r) => [
    r.server,
    r.path,
    String(r.concurrency),
    fmt.rps(r.requestsPerSecond),
    fmt.ms(r.p50Ms),
    fmt.ms(r.p99Ms),
    bare50 !== undefined && r.concurrency === 50 ? fmt.ratio(r.requestsPerSecond / bare50.requestsPerSecond) : "",
    r.cpuUsPerRequest === null ? "?" : r.cpuUsPerRequest.toFixed(1),
    String(r.errors),
    t.rounds > 1 ? r.roundsRps.map(fmt.rps).join(" ") : "",
  ]);
  const rss = Object.entries(t.rssAfterLoadMb).map(([name, mb]) => `${name} ${mb === null ? "?" : fmt.mb(mb)}`);
  // What the req/s ratio would be if both servers were bound by their own CPU: robust to neighbours.
  const svc50 = t.rows.find((r) => r.server === SVC_BINARY && r.path === "/health" && r.concurrency === 50);
  const cpuRatio =
    svc50?.cpuUsPerRequest && bare50?.cpuUsPerRequest
      ? [`/health c=50 by CPU cost (bare µs/req ÷ ${SVC_BINARY} µs/req): ${fmt.ratio(bare50.cpuUsPerRequest / svc50.cpuUsPerRequest)}`]
      : [];
  return [
    `Throughput: ${t.durationSeconds} s per run, median of ${t.rounds} interleaved round(s), ${t.warmupSeconds} s warm-up before round 1`,
    `load generator: ${t.generator}`,
    `2 cores: the generator and the server each get about one; the server side is one JS thread, so svc and bare are bound alike.`,
    `server CPU µs/req (user + system, from /proc) is the steadier figure when other work shares the machine.`,
    table(["server", "path", "c", "req/s", "p50", "p99", "÷ bare c=50", "server CPU µs/req", "errors", "rounds (req/s)"], rows),
    ...cpuRatio,
    `RSS after load: ${rss.join("; ")}`,
  ].join("\n");
}

function verdictSection(s: BenchSummary): string {
  const show = (v: Verdict, n: number) =>
    v.what.includes("req/s") ? fmt.rps(n) : v.what.includes("÷") ? `${fmt.ratio(n)}×` : v.what.includes("share") ? `${(n * 100).toFixed(1)}%` : n.toFixed(n < 10 ? 2 : 1);
  const rows = s.verdicts.map((v) => [
    v.what,
    show(v, v.measured),
    `${v.direction === "at most" ? "≤" : "≥"} ${show(v, v.target)}`,
    v.met ? "pass" : "FAIL",
    v.detail,
    v.reference === null ? "" : show(v, v.reference),
  ]);
  const m = s.machine;
  return [
    `Targets (MB = 10^6 bytes; timing never fails the bench); load average ${m.loadAverageBefore.toFixed(2)} before, ${m.loadAverageAfter.toFixed(2)} after, ${m.cpus} cores`,
    table(["figure", "measured", "target", "", "made of", REFERENCE.name], rows),
  ].join("\n");
}

export function renderReport(s: BenchSummary): string {
  const parts = [header(s), binarySection(s)];
  if (s.startup !== null) parts.push(startupSection(s.startup));
  if (s.version !== null) parts.push(versionSection(s.version));
  if (s.rss !== null) parts.push(rssSection(s.rss));
  if (s.throughput !== null) parts.push(throughputSection(s.throughput));
  if (s.sessions !== null) parts.push(renderSessions(s.sessions));
  if (s.events !== null) parts.push(renderEvents(s.events));
  if (s.files !== null) parts.push(renderFilesReport(s.files).trimEnd());
  if (s.journal !== null) parts.push(renderJournal(s.journal));
  else if (s.journalCost !== null) parts.push(journalCostSection(s.journalCost));
  if (s.builtinAgent !== null) parts.push(builtinAgentSection(s.builtinAgent));
  if (s.web !== null) parts.push(renderWeb(s.web));
  parts.push(verdictSection(s));
  return `${parts.join("\n\n")}\n`;
}
