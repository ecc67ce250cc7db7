/**
 * `bun run bench [--quick] [--only startup|version|rss|throughput|sessions|events|files|journal|web|agent] [--binary <path>] [--baseline <path>] [--fallback-load]`
 *
 * Measures svc's figures against the issues' targets: the foundation against the floor, built in
 * the same run with the same Bun (`bun build --compile` of a bare `Bun.serve` that answers "ok",
 * and of a binary that prints a version), each figure as a ratio to it beside its absolute value
 * (binary size, cold start, `--version`, idle RSS, throughput/latency of
 * /health and /capabilities), sessions and events with the fake ACP agent as the agent child, the
 * workspace file routes, and the web UI (bundle size, idle RSS with and without it, and in chromium
 * the session list's first render and 5,000 streamed chunks). Prints tables on stdout (progress on
 * stderr) and writes the JSON summary to `.bench/last.json`. Timing never fails it: it exits non-zero only when something broke.
 * `--baseline <binary>` (e.g. a build of an earlier commit) adds that binary to the size, cold
 * start, idle RSS and throughput sections, interleaved with the one under test: a before/after
 * comparison from one run on one machine state.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { measureEvents } from "./events.ts";
import { BARE_FANOUT_NAME } from "./fanout.ts";
import { runFilesBench } from "./files.ts";
import { measureJournal, measureJournalCost } from "./journal.ts";
import { buildBareBinaries } from "./lib/bare-binaries.ts";
import { measureBuiltinAgent } from "./builtin-agent.ts";
import { measureVersion } from "./version.ts";
import { obtainBinary } from "./lib/binary.ts";
import { bundleFakeAgent, FAKE_AGENT_TS } from "./lib/fake-agent-bundle.ts";
import { pickLoadGenerator } from "./lib/load.ts";
import { cleanUp, cleanUpOnSignals, scratchDir } from "./lib/procs.ts";
import { BARE_NAME, bareServer, REPO_ROOT, SVC_BASELINE, SVC_BINARY, svcCommand, svcServer } from "./lib/servers.ts";
import { pickSections, SECTIONS } from "./lib/sections.ts";
import { verdicts, vsBare } from "./lib/targets.ts";
import { renderReport, type BenchSummary } from "./report.ts";
import { measureRss } from "./rss.ts";
import { measureSessions } from "./sessions.ts";
import { measureStartup } from "./startup.ts";
import { measureThroughput, type LoadPlan } from "./throughput.ts";
import { measureWeb } from "./web.ts";


const SETTINGS = {
  full: { startupRuns: 15, versionRuns: 15, rssRuns: 5, rssSettleMs: 1000, warmupSeconds: 1, durationSeconds: 5, rounds: 3, agentRuns: 10 },
  quick: { startupRuns: 5, versionRuns: 7, rssRuns: 3, rssSettleMs: 300, warmupSeconds: 0.5, durationSeconds: 1, rounds: 2, agentRuns: 3 },
};

const USAGE = `usage: bun bench/run.ts [--quick] [--only ${SECTIONS.join("|")}]... [--binary <path>] [--baseline <path>] [--fallback-load]
  --quick          the issue-23 targets only (startup, version, rss, throughput, 1000-subscriber
                   fan-out, journal cost, built-in agent), fewer runs: under a minute
  --only <name>    run only these sections (repeatable or comma-separated)
  --binary <path>  measure this compiled binary instead of building one from the working tree
  --baseline <path>  also measure this binary (size, startup, rss, throughput), for a before/after
  --fallback-load  use the Bun fetch-loop load generator even when wrk is on PATH
`;

function readOptions() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string", multiple: true, default: [] },
      binary: { type: "string" },
      baseline: { type: "string" },
      "fallback-load": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  return {
    mode: values.quick ? ("quick" as const) : ("full" as const),
    sections: pickSections(values.only, values.quick),
    binary: values.binary ?? null,
    baseline: values.baseline ?? null,
    forceFallback: values["fallback-load"],
  };
}

const benchStarted = performance.now();
const elapsedSeconds = () => (performance.now() - benchStarted) / 1000;
const progress = (text: string) => process.stderr.write(`bench: [${elapsedSeconds().toFixed(1)} s] ${text}\n`);

async function main(): Promise<void> {
  const options = readOptions();
  const settings = SETTINGS[options.mode];
  const loadAverageBefore = loadavg()[0]!;

  progress(options.binary === null ? "building the binary from the working tree…" : `using ${options.binary}`);
  progress("compiling the bare baselines alongside (Bun.serve answering ok, a version print, an SSE fan-out)…");
  const [binary, bare] = await Promise.all([obtainBinary(options.binary), buildBareBinaries()]);
  const baseline = options.baseline === null ? null : await obtainBinary(options.baseline);
  const quick = options.mode === "quick";
  const svcBinary = svcCommand(binary.path);
  const svcSource = svcCommand(null);
  const baselineServer = (stderr: "file" | "null") => (baseline === null ? [] : [svcServer(SVC_BASELINE, svcCommand(baseline.path), { stderr })]);
  const bootServers = [
    svcServer(SVC_BINARY, svcBinary, { stderr: "file" }),
    ...baselineServer("file"),
    // From source only in a full run: it is context, not a target.
    ...(quick ? [] : [svcServer("svc (bun src/main.ts)", svcSource, { stderr: "file" })]),
    bareServer(bare.serve, { stderr: "file" }),
  ];

  let startup: BenchSummary["startup"] = null;
  if (options.sections.includes("startup")) {
    progress(`cold start, ${settings.startupRuns} runs per server…`);
    startup = { runs: settings.startupRuns, results: await measureStartup(bootServers, settings.startupRuns) };
  }

  let version: BenchSummary["version"] = null;
  if (options.sections.includes("version")) {
    progress(`svc --version, ${settings.versionRuns} runs each…`);
    version = await measureVersion(binary.path, bare.version, settings.versionRuns);
  }

  let rss: BenchSummary["rss"] = null;
  if (options.sections.includes("rss")) {
    progress(`idle RSS, ${settings.rssRuns} runs per server…`);
    rss = { runs: settings.rssRuns, settleMs: settings.rssSettleMs, results: await measureRss(bootServers, settings.rssRuns, settings.rssSettleMs) };
  }

  let throughput: BenchSummary["throughput"] = null;
  if (options.sections.includes("throughput")) {
    const generator = pickLoadGenerator({ forceFallback: options.forceFallback });
    // The access log is part of the default configuration, so the headline rows keep it (written to
    // /dev/null: the cost measured is svc's, not a disk's). The warn-level rows show what it costs.
    const quickPlans: LoadPlan[] = [
      { ...svcServer(SVC_BINARY, svcBinary, { stderr: "null" }), runs: [{ path: "/health", concurrency: 50 }, { path: "/capabilities", concurrency: 50 }] },
      { ...bareServer(bare.serve, { stderr: "null" }), runs: [{ path: "/health", concurrency: 50 }] },
    ];
    const plans: LoadPlan[] = quick ? quickPlans : [
      {
        ...svcServer(SVC_BINARY, svcBinary, { stderr: "null" }),
        runs: [
          { path: "/health", concurrency: 1 },
          { path: "/health", concurrency: 50 },
          { path: "/capabilities", concurrency: 1 },
          { path: "/capabilities", concurrency: 50 },
          // Issue 13: the idle status snapshot stays under 1 ms a call (p50 at c=1; memory use is sampled, not read per call).
          { path: "/daemon/status", concurrency: 1 },
        ],
      },
      {
        ...svcServer("svc (binary, --log-level warn)", svcBinary, { args: ["--log-level", "warn"], stderr: "null" }),
        runs: [
          { path: "/health", concurrency: 50 },
          { path: "/capabilities", concurrency: 50 },
        ],
      },
      ...baselineServer("null").map((server) => ({
        ...server,
        runs: [
          { path: "/health", concurrency: 1 },
          { path: "/health", concurrency: 50 },
          { path: "/capabilities", concurrency: 50 },
        ],
      })),
      {
        ...bareServer(bare.serve, { stderr: "null" }),
        runs: [
          { path: "/health", concurrency: 1 },
          { path: "/health", concurrency: 50 },
        ],
      },
    ];
    const runCount = plans.reduce((n, p) => n + p.runs.length, 0);
    progress(`throughput, ${runCount} load runs × ${settings.rounds} round(s) × ${settings.durationSeconds} s with ${generator.description}…`);
    const timing = { warmupSeconds: settings.warmupSeconds, durationSeconds: settings.durationSeconds, rounds: settings.rounds };
    throughput = { ...(await measureThroughput(plans, generator, timing)), generator: generator.description, fallback: generator.fallback, ...timing };
  }

  // Sessions and events run the compiled binary with the fake agent as its child. A third-party entry
  // runs under the binary itself acting as bun (BUN_BE_BUN=1), as the daemon starts it; one HOME
  // for all of them keeps Bun's transpiler cache as warm as on a user's machine.
  let sessions: BenchSummary["sessions"] = null;
  let events: BenchSummary["events"] = null;
  let journal: BenchSummary["journal"] = null;
  let journalCost: BenchSummary["journalCost"] = null;
  if (options.sections.includes("sessions") || options.sections.includes("events") || options.sections.includes("journal")) {
    progress("bundling the fake agent…");
    const bundledAgent = await bundleFakeAgent();
    const home = scratchDir("agent-home");
    if (options.sections.includes("sessions"))
      sessions = await measureSessions({
        svc: svcBinary,
        agentRuntime: { execPath: binary.path, env: { BUN_BE_BUN: "1" }, home },
        agents: [
          { name: "fake-agent.ts (transpiled at spawn)", entry: FAKE_AGENT_TS },
          { name: "fake-agent.js (pre-bundled)", entry: bundledAgent },
        ],
        quick,
        progress,
      });
    if (options.sections.includes("events")) events = await measureEvents({ svc: svcBinary, agentEntry: bundledAgent, home, bareFanout: bare.fanout, quick, progress });
    if (options.sections.includes("journal")) {
      const journalOptions = { svc: svcBinary, agentEntry: bundledAgent, home, quick, progress };
      if (quick) journalCost = await measureJournalCost(journalOptions);
      else journalCost = journal = await measureJournal(journalOptions);
    }
  }

  let files: BenchSummary["files"] = null;
  if (options.sections.includes("files")) files = await runFilesBench({ quick: options.mode === "quick", binary: binary.path, progress: (text) => progress(`files: ${text}`) });

  let web: BenchSummary["web"] = null;
  if (options.sections.includes("web")) web = await measureWeb({ binary: binary.path, quick: options.mode === "quick", rssRuns: settings.rssRuns, settleMs: settings.rssSettleMs, progress });


  let builtinAgent: BenchSummary["builtinAgent"] = null;
  if (options.sections.includes("agent")) {
    progress(`built-in agent: spawn → initialize, idle RSS, daemon → first session, ${settings.agentRuns} runs…`);
    builtinAgent = await measureBuiltinAgent(binary.path, settings.agentRuns, settings.rssSettleMs);
  }

  const rowOf = (server: string, path: string) => throughput?.rows.find((r) => r.server === server && r.path === path && r.concurrency === 50);
  const health = rowOf(SVC_BINARY, "/health");
  const fanout1000 = events?.fanout.find((f) => f.subscribers === 1000 && f.server === SVC_BINARY);
  const bareFanout1000 = events?.fanout.find((f) => f.subscribers === 1000 && f.server === BARE_FANOUT_NAME);
  const bareHealth = rowOf(BARE_NAME, "/health");
  const summary: BenchSummary = {
    finishedAt: new Date().toISOString(),
    elapsedSeconds: elapsedSeconds(),
    mode: options.mode,
    sections: options.sections,
    machine: { cpus: cpus().length, platform: `${process.platform}-${process.arch}`, bun: Bun.version, loadAverageBefore, loadAverageAfter: loadavg()[0]! },
    binary: { path: options.binary ?? "(temporary build, removed)", origin: binary.origin, bytes: binary.bytes },
    bareBinaryBytes: bare.serveBytes,
    version,
    builtinAgent,
    journalCost,
    baseline: baseline === null ? null : { path: baseline.path, bytes: baseline.bytes },
    startup,
    rss,
    throughput,
    sessions,
    events,
    files,
    journal,
    web,
    verdicts: verdicts({
      startupVsBare: vsBare(startup?.results, (r) => r.medianMs, SVC_BINARY, BARE_NAME),
      versionVsBare: version === null ? null : { svc: version.svcMedianMs, bare: version.bareMedianMs },
      rssVsBare: vsBare(rss?.results, (r) => r.medianMb, SVC_BINARY, BARE_NAME),
      agentInitMs: builtinAgent?.initMedianMs ?? null,
      agentIdleRssMb: builtinAgent?.idleRssMb ?? null,
      builtinFirstSessionMs: builtinAgent?.firstSessionMedianMs ?? null,
      journalCost,
      fanout1000Rate: fanout1000 === undefined ? null : { eventsPerSecond: fanout1000.eventsPerSecond, framesPerSecond: fanout1000.framesPerSecond },
      fanout1000BareP99Ms: bareFanout1000?.lagP99Ms ?? null,
      startupMs: startup?.results.find((r) => r.name === SVC_BINARY)?.medianMs ?? null,
      idleRssMb: rss?.results.find((r) => r.name === SVC_BINARY)?.medianMb ?? null,
      healthRps: health?.requestsPerSecond ?? null,
      healthVsBare: health !== undefined && bareHealth !== undefined ? health.requestsPerSecond / bareHealth.requestsPerSecond : null,
      capabilitiesRps: rowOf(SVC_BINARY, "/capabilities")?.requestsPerSecond ?? null,
      payloadMb: (binary.bytes - bare.serveBytes) / 1e6,
      firstSessionMs: sessions?.firstSession[1]?.medianMs ?? null,
      threadCreateP50Ms: sessions?.threadCreate.p50Ms ?? null,
      threadCreateP95Ms: sessions?.threadCreate.p95Ms ?? null,
      sessionKb: sessions?.rss.daemonKbPerSession ?? null,
      promptAckP50Ms: events?.prompts.ackP50Ms ?? null,
      promptFirstEventP50Ms: events?.prompts.firstEventP50Ms ?? null,
      fanout1000P99Ms: fanout1000?.lagP99Ms ?? null,
      replayMs: events?.replay.p50Ms ?? null,
    }),
  };

  process.stdout.write(renderReport(summary));
  const outDir = join(REPO_ROOT, ".bench");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "last.json"), `${JSON.stringify(summary, null, 2)}\n`);
  progress(`summary written to ${join(outDir, "last.json")}`);
}

cleanUpOnSignals();
try {
  await main();
} catch (err) {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
