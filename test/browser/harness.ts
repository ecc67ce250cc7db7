/**
 * Browser tests' harness: Debian's chromium driven headless by playwright-core, against test daemons
 * (`startDaemon`: the sources in process, or the compiled binary under SVC_TEST_TARGET=binary) whose
 * agent is the built-in one over the mock model.
 *
 * - `browserDescribe(name, body)`: the suite, or, without chromium, one printed line and a skip
 *   (under `CI`, one failing test saying what to install instead).
 * - `launchBrowser()`: a headless chromium with a fresh temp profile; `context()` for each test.
 * - `openUi(context, url)`: a page (closed with its context on dispose) watched for console errors, CSP violations and the URLs it
 *   requested; `expectClean(watched)` asserts there was no console error and no CSP violation.
 * - `uiFixture(options)`: a workspace, a data dir (with `hostSettings` as its settings.json, if given)
 *   and the mock model; `start()` starts a daemon on them (call it again after stopping one to
 *   restart on the same data).
 * - `screenshot(page, name)`: kept under `test-artifacts/browser/` (gitignored).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { REPO_ROOT, startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { CHROMIUM, LAUNCH_ARGS } from "./chromium.ts";

export const ARTIFACTS = join(REPO_ROOT, "test-artifacts", "browser");
/** How long a UI state may take to appear (a whole agent turn included). */
export const UI_MS = 15_000;

/** The skip is told once per test process, not once per suite. */
let skipTold = false;

export function browserDescribe(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) return describe(name, body);
  if (process.env.CI) {
    test(`${name}: chromium`, () => {
      throw new Error(`browser tests need Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
    });
    return;
  }
  if (!skipTold) console.log(`skipping the browser tests: no chromium at ${CHROMIUM} (apt-get install chromium)`);
  skipTold = true;
  describe.skip(name, body);
}

export interface Browser extends AsyncDisposable {
  /** A new browser context: its own cookies and sessionStorage, like a fresh browser window. */
  context(): Promise<BrowserContext>;
}

/**
 * A headless chromium. Playwright starts it with a fresh temp profile of its own
 * (`--user-data-dir=<tmp>/playwright_chromiumdev_profile-*`, removed on close), so no state of a
 * previous run or of the machine's user is read.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  return {
    context: () => browser.newContext(),
    [Symbol.asyncDispose]: () => browser.close(),
  };
}

/** A page in its own browser context; disposing closes the context. */
export interface WatchedPage extends AsyncDisposable {
  readonly page: Page;
  readonly consoleErrors: string[];
  /** Every URL the page requested (documents, scripts, fetches, event streams). */
  readonly requests: string[];
  /** `<status> <method> <url>` of every answer with status ≥ 400 (what a `Failed to load resource` error was about). */
  readonly failures: string[];
  /** CSP violations the page reported (`securitypolicyviolation`). */
  cspViolations(): Promise<string[]>;
}

/** `(status: 401)`-style console errors the test expects (e.g. the first API call before the token). */
export interface CleanOptions {
  allowStatuses?: number[];
}

export async function openUi(context: BrowserContext, url: string): Promise<WatchedPage> {
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const failures: string[] = [];
  page.on("response", (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(`${message.text()} [${message.location().url}]`);
  });
  page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`));
  page.on("request", (request) => requests.push(request.url()));
  // Injected by the browser itself (CDP), not subject to the page's CSP.
  await page.addInitScript(() => {
    const found: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = found;
    document.addEventListener("securitypolicyviolation", (e) => found.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  return {
    page,
    consoleErrors,
    requests,
    failures,
    cspViolations: () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp ?? []),
    [Symbol.asyncDispose]: () => context.close(),
  };
}

/** No CSP violation and no console error (but `Failed to load resource` of an allowed status). */
export async function expectClean(watched: WatchedPage, options: CleanOptions = {}): Promise<void> {
  const allowed = (options.allowStatuses ?? []).map((status) => `status of ${status} `);
  const errors = watched.consoleErrors.filter((text) => !(text.startsWith("Failed to load resource") && allowed.some((a) => text.includes(a))));
  expect(await watched.cspViolations()).toEqual([]);
  expect({ errors, failures: errors.length === 0 ? [] : watched.failures }).toEqual({ errors: [], failures: [] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export interface UiFixture extends AsyncDisposable {
  readonly model: MockModel;
  readonly ws: TempDir;
  /** The daemon's data dir (`SVC_HOME`: its settings, trust store and database). */
  readonly home: TempDir;
  /** Starts a daemon on the fixture's workspace and data dir, with `args` (e.g. `--token`). */
  start(args?: string[]): Promise<TestDaemon>;
}

export interface UiFixtureOptions {
  /** Written as the data dir's `settings.json` (the host settings; `ui.autoTitle` is false unless it says otherwise). */
  hostSettings?: Record<string, unknown>;
}

/** A workspace, a data dir of its own and the mock model behind the built-in agent. */
export function uiFixture(options: UiFixtureOptions = {}): UiFixture {
  const model = startMockModel();
  const ws = tempDir("svc-browser-ws-");
  const home = tempDir("svc-browser-home-");
  // Automatic titles off unless a test asks: their model request would take a reply a test queued for its next prompt.
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, ...options.hostSettings }));
  mkdirSync(join(ws.path, ".svc"));
  writeFileSync(join(ws.path, ".svc", "settings.json"), "{}");
  const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
  return {
    model,
    ws,
    home,
    start: (args = []) => startDaemon(args, { workspace: ws.path, env }),
    async [Symbol.asyncDispose]() {
      await model[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

/** Removes the previous run's screenshots, so the folder shows this run's states only. */
export function clearArtifacts(prefix: string): void {
  if (!existsSync(ARTIFACTS)) return;
  for (const file of new Bun.Glob(`${prefix}*.png`).scanSync(ARTIFACTS)) rmSync(join(ARTIFACTS, file));
}
