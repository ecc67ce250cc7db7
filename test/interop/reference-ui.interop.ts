/**
 * Interop: the reference's own web UI against svc. The `web-shell/` folder of the reference package
 * (`@qwen-code/qwen-code`, installed into `.interop/` by `npm run test:interop`) is served by a small
 * static server that forwards every API call to svc (`web-shell-proxy.ts`), as `qwen serve` serves
 * it in front of itself. Debian's chromium drives it, against the built-in agent over the mock model.
 *
 * The adapter's only change to the traffic is the header vendor prefix: the page's `X-Qwen-*`
 * request headers (`X-Qwen-Client-Id`, `X-Qwen-Event-Epoch`) reach svc as `X-Svc-*`, and svc's
 * `X-Svc-*` answer headers (`X-Svc-Event-Epoch`, `X-Svc-SSE-Stream-Id`) reach the page as
 * `X-Qwen-*`. Paths, queries, bodies and statuses pass unchanged. The page's origin is the static
 * server's, so svc runs with `--allow-origin <that origin>`; and with `--trust-workspace`, since the
 * UI creates sessions only in a trusted workspace (svc's folders start untrusted, the reference's
 * count as trusted: docs/compat.md).
 *
 * The flow, one step per test: create a session by sending a prompt, see its reply streamed (over
 * `GET /session/:id/events`), answer a file write's permission card "Yes, allow once", see the file
 * on disk, and reopen the session from the sidebar (the page detaches on leaving and loads it
 * back). The last test fails on any answer with status
 * ≥ 400 (seen by the proxy or the page) and any uncaught page error in the whole flow, naming each.
 * A step after a failed one fails at once, saying which one broke the flow.
 *
 * Without the reference package this file skips with the reason, unless `CI` is set (then it fails).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ANSWER_TEXT, startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { launchBrowser, screenshot, type Browser } from "../browser/harness.ts";
import { CHROMIUM } from "../browser/chromium.ts";
import { INTEROP_DIR } from "./install-qwen.ts";
import { startWebShellProxy, type WebShellProxy } from "./web-shell-proxy.ts";

const WEB_SHELL = join(INTEROP_DIR, "node_modules", "@qwen-code", "qwen-code", "web-shell");
/** One step's bound: a whole agent turn on two shared cores, with the page's own polling. */
const STEP_MS = 30_000;
/** What the mock's write tool call puts in the file. */
const WRITTEN = "hello from mock\n";
/** The mock's answer once the write's tool result comes back. */
const TOOL_DONE = "tool finished";

const missing = [existsSync(join(WEB_SHELL, "index.html")) ? null : `the reference's web-shell at ${WEB_SHELL} (npm run test:interop installs it)`, existsSync(CHROMIUM) ? null : `chromium at ${CHROMIUM}`].filter(Boolean);

if (missing.length > 0 && !process.env.CI) {
  console.log(`skipping the reference-UI interop test: it needs ${missing.join(" and ")}`);
  describe.skip("the reference's web UI against svc", () => {});
} else {
  describe("the reference's web UI against svc", () => {
    let model: MockModel;
    let ws: TempDir;
    let home: TempDir;
    let proxy: WebShellProxy;
    let daemon: TestDaemon;
    let browser: Browser;
    let page: Page;
    /** Answers ≥ 400 the page saw that the proxy did not forward, and its uncaught errors; console errors explain a failure. */
    const pageFailures: string[] = [];
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    /** The first step that failed; the later ones stop at once. */
    let brokenAt = "";
    /**
     * The one answer ≥ 400 the flow expects: the tool card's "open file" button asks
     * `GET /stat?path=<the file>` while the write waits for its vote, and the file is not there yet.
     * The reference answers the same 404 `path_not_found` for a missing path, and the page takes it
     * as "no button" (its own catch). It shows here because the built-in agent names the path in
     * its first `tool_call`; the reference's agent sends `rawInput: {}` until the permission request.
     */
    const probesOfTheWrite: string[] = [];
    let sessionId = "";

    /** Runs one step; a failure marks the flow broken, with a screenshot of where it stood. */
    const step = (name: string, body: () => Promise<void>) =>
      test(
        name,
        async () => {
          if (brokenAt) throw new Error(`not run: the flow broke at "${brokenAt}"`);
          try {
            await body();
          } catch (error) {
            brokenAt = name;
            await screenshot(page, `reference-ui-broken-${name.replace(/\W+/g, "-")}`).catch(() => {});
            throw error;
          }
        },
        STEP_MS * 3,
      );

    beforeAll(async () => {
      if (missing.length > 0) throw new Error(`the reference-UI interop test needs ${missing.join(" and ")}`);
      model = startMockModel();
      ws = tempDir("svc-refui-ws-");
      home = tempDir("svc-refui-home-");
      // Ask before file writes, so the write turn shows a permission card.
      // No automatic title: the mock model answers every request with the same text, so the title would
      // read as the reply and show in the sidebar of the new task's page.
      writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
      mkdirSync(join(ws.path, ".svc"));
      writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
      proxy = startWebShellProxy(WEB_SHELL);
      daemon = await startDaemon(["--trust-workspace", "--allow-origin", proxy.url], {
        workspace: ws.path,
        env: { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" },
      });
      proxy.upstream = daemon.url;
      browser = await launchBrowser();
      page = await (await browser.context()).newPage();
      // The forwarded ones are in the proxy's list, with their bodies; the page's list adds the rest.
      page.on("response", (response) => {
        const url = new URL(response.url());
        const line = `${response.status()} ${response.request().method()} ${url.pathname}${url.search}`;
        if (response.status() >= 400 && !proxy.failures.some((f) => f.startsWith(`${line} `))) pageFailures.push(line);
      });
      page.on("pageerror", (error) => pageErrors.push(error.stack ?? error.message));
      page.on("console", (message) => {
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) consoleErrors.push(message.text());
      });
    }, STEP_MS);

    afterAll(async () => {
      await browser?.[Symbol.asyncDispose]();
      await daemon?.[Symbol.asyncDispose]();
      await proxy?.[Symbol.asyncDispose]();
      await model?.[Symbol.asyncDispose]();
      await home?.[Symbol.asyncDispose]();
      await ws?.[Symbol.asyncDispose]();
    });

    // The prompt box is the page's editable text area: while the page connects it may show its
    // "Connect to Qwen Code" form, whose address field is a textbox too.
    const composer = () => page.locator('[contenteditable="true"]').first();
    const sidebar = () => page.getByRole("complementary", { name: "Workspace sidebar" });
    const send = async (text: string) => {
      await composer().fill(text);
      await page.getByRole("button", { name: "Send message" }).click();
    };
    const sessionOfUrl = () => decodeURIComponent(/\/session\/([^/?#]+)/.exec(page.url())?.[1] ?? "");

    step("the page loads from the static server and shows the composer", async () => {
      await page.goto(`${proxy.url}/`);
      await composer().waitFor({ timeout: STEP_MS });
      expect(proxy.requests).toContain("GET /capabilities");
    });

    step("a prompt creates a session and its reply streams in", async () => {
      await send("please answer");
      await until(() => proxy.requests.includes("POST /session"), STEP_MS, "the page to create a session (POST /session; the composer drops a send it cannot make)");
      await page.getByText(ANSWER_TEXT).first().waitFor({ timeout: STEP_MS });
      sessionId = sessionOfUrl();
      expect(sessionId.length).toBeGreaterThan(0);
      expect(proxy.requests).toContain("POST /session");
      expect(proxy.requests.some((r) => r.startsWith(`GET /session/${sessionId}/events`))).toBe(true);
    });

    step("a file write asks; allow once writes the file and the turn ends", async () => {
      const target = join(ws.path, "from-the-reference-ui.txt");
      probesOfTheWrite.push(`404 GET /stat?${new URLSearchParams({ path: target })} {"errorKind":"path_not_found",`);
      await send(`please write ${target}`);
      const card = page.getByRole("alertdialog");
      await card.waitFor({ timeout: STEP_MS });
      expect(existsSync(target)).toBe(false);
      await card.getByRole("radio", { name: "Yes, allow once" }).click();
      await until(() => existsSync(target), STEP_MS, "the file the write wrote");
      expect(readFileSync(target, "utf8")).toBe(WRITTEN);
      await page.getByText(TOOL_DONE).first().waitFor({ timeout: STEP_MS });
      expect(proxy.requests.some((r) => r.startsWith(`POST /session/${sessionId}/permission/`))).toBe(true);
      // The page's client id (its X-Qwen-Client-Id, renamed) reached svc: the vote is attributed to it.
      const transcript = await (await daemon.fetch(`/session/${encodeURIComponent(sessionId)}/transcript?limit=500`)).json();
      const resolved = transcript.events.find((e: { type: string }) => e.type === "permission_resolved");
      expect(resolved?.data).toMatchObject({ outcome: { outcome: "selected", optionId: "proceed_once" }, voterClientId: expect.stringMatching(/^client_/) });
    });

    step("the session reopens from the sidebar with its transcript", async () => {
      await page.getByRole("button", { name: "New task" }).click();
      await page.getByText("What would you like to do?").waitFor({ timeout: STEP_MS });
      expect(await page.getByText(ANSWER_TEXT).count()).toBe(0);
      // Its title when the agent gave one (the reference's agent titles sessions; the built-in agent does not), else its id's first 8 characters.
      const entry = new RegExp(`please answer|${sessionId.slice(0, 8)}`);
      await sidebar().getByRole("button", { name: entry }).first().click({ timeout: STEP_MS });
      await page.getByText(ANSWER_TEXT).first().waitFor({ timeout: STEP_MS });
      await page.getByText(TOOL_DONE).first().waitFor({ timeout: STEP_MS });
      expect(sessionOfUrl()).toBe(sessionId);
    });

    test("no request failed and the page threw nothing in the whole flow", async () => {
      await screenshot(page, "reference-ui-end").catch(() => {});
      const proxyFailures = proxy.failures.filter((line) => !probesOfTheWrite.some((probe) => line.startsWith(probe)));
      const failed = proxyFailures.length + pageFailures.length + pageErrors.length > 0;
      // The page's console errors and the daemon's error lines only explain a failure; alone they do not fail the flow.
      const daemonErrorsOfAFailedFlow = failed ? daemon.logs.filter((line) => /\b(ERROR|WARN|stack)\b/.test(line)) : [];
      expect({ proxyFailures, pageFailures, pageErrors, consoleErrorsOfAFailedFlow: failed ? consoleErrors : [], daemonErrorsOfAFailedFlow }).toEqual({
        proxyFailures: [],
        pageFailures: [],
        pageErrors: [],
        consoleErrorsOfAFailedFlow: [],
        daemonErrorsOfAFailedFlow: [],
      });
    });
  });
}
