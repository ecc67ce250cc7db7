/**
 * The web UI (issue 14), through the compiled binary:
 * - bundle size: the JS and CSS the binary serves for `/`, gzipped (target ≤ 150 KB);
 * - idle RSS with the UI on and with `--no-web`, no browser connected (target: unchanged; the UI is
 *   read from the binary only when first asked for);
 * - first render of the session list: navigation start → the list showing its items, in a fresh
 *   browser context each run (cold cache), with a handful of sessions in the daemon (≤ 300 ms);
 * - streaming 5,000 chunks: the built-in agent over the mock model streams a reply of 5,000 chunks
 *   into an open chat view while a PerformanceObserver records long tasks (target: none > 100 ms).
 * The browser parts need Debian's chromium (test/browser/chromium.ts); without it they are skipped.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { startMockModel } from "../test/fixtures/mock-model.ts";
import { CHROMIUM, LAUNCH_ARGS } from "../test/browser/chromium.ts";
import { stopProcess } from "./lib/procs.ts";
import { launch, svcServer } from "./lib/servers.ts";
import { median } from "./lib/stats.ts";
import { fmt, table } from "./lib/table.ts";
import { measureRss, type RssResult } from "./rss.ts";

export const WEB_TARGETS = { bundleGzipKb: 150, firstRenderMs: 300, longTaskMs: 100 } as const;

const SETTINGS = {
  full: { renderRuns: 10, sessions: 10 },
  quick: { renderRuns: 3, sessions: 5 },
};
const STREAM_CHUNKS = 5000;
/** Every chunk is one 8-character word, `c00042. `: the last one marks the end of the reply. */
/** One streamed chunk: a numbered word, every tenth ending a paragraph (one unbroken line would be cut by the UI's long-line bound). */
const chunkWord = (i: number) => `c${String(i).padStart(5, "0")}.${i % 10 === 9 ? "\n\n" : " "}`;
const STREAM_TIMEOUT_MS = 120_000;

export interface WebResult {
  readonly bundleGzipKb: number;
  readonly assets: number;
  readonly idleRss: readonly RssResult[];
  /** Null without chromium. */
  readonly browser: {
    readonly sessions: number;
    readonly firstRenderMs: readonly number[];
    /** Navigation start → DOMContentLoaded end, same runs. */
    readonly scriptLoadedMs: readonly number[];
    readonly streamMs: number;
    /** `agent_message_chunk` updates the session's stream carried for the reply. */
    readonly chunks: number;
    readonly longTasks: number;
    readonly maxLongTaskMs: number;
  } | null;
}

/** The shell's assets, fetched from the daemon as a browser would, gzipped. */
async function servedBundle(url: string): Promise<{ gzipBytes: number; assets: number }> {
  const shell = await (await fetch(`${url}/`)).text();
  const paths = [...shell.matchAll(/\b(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let gzipBytes = 0;
  for (const path of paths) gzipBytes += Bun.gzipSync(new Uint8Array(await (await fetch(url + path)).arrayBuffer())).byteLength;
  return { gzipBytes, assets: paths.length };
}

/**
 * Navigation start → the session list showing `count` items, in page time (ms), and → the end of
 * DOMContentLoaded (the module script fetched and run: the share of the bundle's size in it).
 */
async function firstRender(browser: Browser, url: string, count: number): Promise<{ listMs: number; scriptMs: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}/`, { waitUntil: "commit" });
    const shown = await page.waitForFunction(
      (n) => (document.querySelectorAll('[aria-label="Sessions"] li, [aria-label="Sessions"] [role="listitem"]').length >= n ? performance.now() : false),
      count,
      { polling: "raf", timeout: 30_000 },
    );
    const listMs = (await shown.jsonValue()) as number;
    const scriptMs = await page.evaluate(() => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).domContentLoadedEventEnd);
    return { listMs, scriptMs };
  } finally {
    await context.close();
  }
}

/**
 * How many `agent_message_chunk` updates the session's stream carried (replayed from its start up
 * to the turn's end): the chunks the page really received, whatever the agent or model merged.
 */
async function chunksDelivered(url: string, sessionId: string): Promise<number> {
  const response = await fetch(`${url}/session/${encodeURIComponent(sessionId)}/events`, { headers: { "Last-Event-ID": "0" } });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!text.includes("event: turn_complete")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    await reader.cancel();
  }
  return text.split("\n").filter((line) => line.startsWith("data:") && line.includes('"sessionUpdate":"agent_message_chunk"') && !line.includes('"text":""')).length;
}

/** Streams STREAM_CHUNKS chunks into an open chat view; long tasks recorded from the prompt on. */
async function streamChunks(browser: Browser, url: string, enqueue: (text: string) => void) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await page.getByRole("button", { name: "New session" }).click();
    const prompt = page.getByRole("textbox", { name: "Prompt" });
    await prompt.waitFor({ timeout: 30_000 });
    await page.evaluate(() => {
      const durations: number[] = [];
      (window as unknown as { __longTasks: number[] }).__longTasks = durations;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) durations.push(entry.duration);
      }).observe({ type: "longtask" });
    });
    enqueue(Array.from({ length: STREAM_CHUNKS }, (_, i) => chunkWord(i)).join(""));
    await prompt.fill("stream please");
    const started = performance.now();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const last = chunkWord(STREAM_CHUNKS - 1).trim();
    await page.waitForFunction((word) => document.querySelector('[aria-label="Transcript"]')?.textContent?.includes(word) ?? false, last, { polling: 50, timeout: STREAM_TIMEOUT_MS });
    const streamMs = performance.now() - started;
    const durations = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    const sessionId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/session\//, ""));
    return { streamMs, chunks: await chunksDelivered(url, sessionId), longTasks: durations.length, maxLongTaskMs: Math.max(0, ...durations) };
  } finally {
    await context.close();
  }
}

export async function measureWeb(options: { binary: string; quick: boolean; rssRuns: number; settleMs: number; progress: (text: string) => void }): Promise<WebResult> {
  const settings = SETTINGS[options.quick ? "quick" : "full"];
  const cmd = [options.binary];
  options.progress(`web: idle RSS, UI on and --no-web, ${options.rssRuns} runs each…`);
  const idleRss = await measureRss(
    [svcServer("svc (binary, web UI on)", cmd, { stderr: "null" }), svcServer("svc (binary, --no-web)", cmd, { args: ["--no-web"], stderr: "null" })],
    options.rssRuns,
    options.settleMs,
  );

  await using model = startMockModel();
  const base = svcServer("svc (binary, built-in agent over the mock model)", cmd, { stderr: "null" }).spec();
  const daemon = await launch({ ...base, env: { ...base.env, OPENAI_API_KEY: "bench-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" } });
  try {
    const { gzipBytes, assets } = await servedBundle(daemon.url);
    if (!existsSync(CHROMIUM)) {
      options.progress(`web: no chromium at ${CHROMIUM}; first render and streaming skipped`);
      return { bundleGzipKb: gzipBytes / 1000, assets, idleRss, browser: null };
    }
    for (let i = 0; i < settings.sessions; i++) {
      // `thread`: a new session each time (the default scope attaches to the workspace's one session).
      const created = await fetch(`${daemon.url}/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sessionScope: "thread" }) });
      if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${await created.text()}`);
    }
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    try {
      options.progress(`web: first render of the session list, ${settings.renderRuns} runs…`);
      const firstRenderMs: number[] = [];
      const scriptLoadedMs: number[] = [];
      for (let run = 0; run < settings.renderRuns; run++) {
        const { listMs, scriptMs } = await firstRender(browser, daemon.url, settings.sessions);
        firstRenderMs.push(listMs);
        scriptLoadedMs.push(scriptMs);
      }
      options.progress(`web: streaming ${STREAM_CHUNKS} chunks…`);
      const stream = await streamChunks(browser, daemon.url, (text) => model.enqueue({ kind: "text", text, chunkChars: chunkWord(0).length }));
      return { bundleGzipKb: gzipBytes / 1000, assets, idleRss, browser: { sessions: settings.sessions, firstRenderMs, scriptLoadedMs, ...stream } };
    } finally {
      await browser.close();
    }
  } finally {
    await stopProcess(daemon.proc);
  }
}

export function renderWeb(w: WebResult): string {
  const [on, off] = w.idleRss;
  const lines = [
    "Web UI (compiled daemon; browser parts in headless chromium)",
    table(
      [`bundle, JS + CSS gzipped (≤ ${WEB_TARGETS.bundleGzipKb} KB)`, "idle RSS, UI on", "idle RSS, --no-web", "difference (unchanged)"],
      [[`${w.bundleGzipKb.toFixed(1)} KB (${w.assets} files)`, fmt.mb(on!.medianMb), fmt.mb(off!.medianMb), fmt.mb(on!.medianMb - off!.medianMb)]],
    ),
  ];
  if (w.browser === null) lines.push("  (no chromium: first render and streaming not measured)");
  else
    lines.push(
      table(
        [`first render of ${w.browser.sessions} sessions, median (≤ ${WEB_TARGETS.firstRenderMs} ms)`, "max", "of it, script loaded", `${fmt.int(STREAM_CHUNKS)} model chunks streamed in`, "chunk events", "long tasks", `longest (≤ ${WEB_TARGETS.longTaskMs} ms)`],
        [[fmt.ms(median(w.browser.firstRenderMs)), fmt.ms(Math.max(...w.browser.firstRenderMs)), fmt.ms(median(w.browser.scriptLoadedMs)), fmt.ms(w.browser.streamMs), fmt.int(w.browser.chunks), String(w.browser.longTasks), fmt.ms(w.browser.maxLongTaskMs)]],
      ),
    );
  return lines.join("\n");
}
