/**
 * A newcomer's walkthrough of the web UI (issue 29, "Checked by"), one step after another on one
 * daemon: open, create, prompt, approve, cancel, browse the workspace and files, close and reopen,
 * restart the daemon and come back, the dark theme, a phone, a token-protected daemon. Each step
 * saves a screenshot (`test-artifacts/browser/walkthrough-NN-*.png`; `bun test/browser/screenshots.ts`
 * copies the README's from there) and every view passes the accessibility audit (a11y.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { TestDaemon } from "../helpers/daemon.ts";
import { until } from "../helpers/until.ts";
import { audit } from "./a11y.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture } from "./harness.ts";

const transcriptOf = (page: Page) => page.getByRole("log", { name: "Transcript" });
const promptBox = (page: Page) => page.getByRole("textbox", { name: "Prompt" });

async function send(page: Page, text: string): Promise<void> {
  await promptBox(page).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

/** A step's screenshot and the audit of what it shows. */
async function step(page: Page, name: string): Promise<void> {
  await screenshot(page, `walkthrough-${name}`);
  expect({ step: name, violations: await audit(page) }).toEqual({ step: name, violations: [] });
}

browserDescribe("a newcomer's walkthrough of the web UI", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon | undefined;
  beforeAll(async () => {
    clearArtifacts("walkthrough-");
    browser = await launchBrowser();
    f = uiFixture();
    writeFileSync(join(f.ws.path, "hello.ts"), 'export const greeting = "hello";\n');
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("create, prompt, approve, cancel, browse, reopen, restart: every step designed and accessible", async () => {
    d = await f.start();
    const context = await browser.context();
    await using w = await openUi(context, `${d.url}/`);
    const page = w.page;
    await page.getByText("No sessions yet.", { exact: false }).waitFor({ timeout: UI_MS });
    // The first paint loads the page's script only; the highlighter is a chunk of its own.
    const scripts = () => w.requests.filter((u) => /^\/assets\/[^/]+\.js$/.test(new URL(u).pathname));
    expect(scripts()).toHaveLength(1);
    await step(page, "01-home");

    await page.getByRole("button", { name: "New session" }).click();
    await promptBox(page).waitFor({ timeout: UI_MS });
    await until(async () => (await page.getByRole("status", { name: "Connection" }).textContent())?.trim() === "live", UI_MS, "live");
    await step(page, "02-new-session");

    f.model.enqueue({ kind: "text", text: "Here is a plan:\n\n1. read `hello.ts`\n2. change the greeting\n\n```ts\nexport const greeting = \"hi\";\n```\n", chunkChars: 12, chunkDelayMs: 5 });
    await send(page, "Change the greeting in hello.ts to hi");
    await transcriptOf(page).getByLabel("Turn ended").first().waitFor({ timeout: UI_MS });
    // The fenced `ts` block is highlighted, by the highlighter's chunk loaded for it (from the binary too).
    await transcriptOf(page).getByRole("article", { name: "Agent" }).locator("pre .hl-kw", { hasText: "export" }).first().waitFor({ timeout: UI_MS });
    expect(scripts()).toHaveLength(2);
    await step(page, "03-reply");

    await send(page, `please write ${join(f.ws.path, "notes.txt")}`);
    const dialog = page.getByRole("dialog", { name: "Permission request" });
    await dialog.waitFor({ timeout: UI_MS });
    await until(async () => !(await dialog.getByRole("button", { name: "Allow", exact: true }).getAttribute("aria-disabled")), UI_MS, "armed");
    await step(page, "04-permission");
    await dialog.getByRole("button", { name: "Allow", exact: true }).click();
    await page.getByRole("group", { name: /^Tool call: / }).last().getByText("completed").waitFor({ timeout: UI_MS });
    await transcriptOf(page).getByLabel("Turn ended").nth(1).waitFor({ timeout: UI_MS });
    await step(page, "05-approved");

    f.model.enqueue({ kind: "hang", text: "Looking through the whole repository" });
    await send(page, "Review everything");
    await page.getByRole("status", { name: "Agent activity" }).waitFor({ timeout: UI_MS });
    await transcriptOf(page).getByText("Looking through").waitFor({ timeout: UI_MS });
    await step(page, "06-working");
    await page.getByRole("button", { name: "Stop" }).click();
    await transcriptOf(page).getByLabel("Turn ended").filter({ hasText: "Cancelled" }).waitFor({ timeout: UI_MS });
    await step(page, "07-cancelled");

    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("button", { name: "Workspace" }).click();
    await page.getByRole("region", { name: "Environment" }).getByText("OPENAI_API_KEY").waitFor({ timeout: UI_MS });
    await step(page, "08-workspace");
    await nav.getByRole("button", { name: "Files" }).click();
    await page.getByRole("tree", { name: "Files" }).getByText("hello.ts").click({ timeout: UI_MS });
    await page.getByRole("region", { name: "File viewer" }).getByText("greeting").waitFor({ timeout: UI_MS });
    await step(page, "09-files");

    // Close the session, then open it again from the list: its history comes back.
    const sessions = page.getByRole("list", { name: "Sessions" });
    await sessions.getByRole("button").first().click();
    await page.getByRole("button", { name: "Close session" }).click();
    await sessions.getByRole("listitem").filter({ hasText: "closed" }).first().getByRole("button").first().click({ timeout: UI_MS });
    await transcriptOf(page).getByLabel("Turn ended").filter({ hasText: "Cancelled" }).waitFor({ timeout: UI_MS });
    await step(page, "10-reopened");
    await expectClean(w);

    // Restart the daemon on the same data; the session is listed and comes back. (The daemon's new
    // port is a new origin: the titles this page remembered stay with the old one.)
    await d[Symbol.asyncDispose]();
    d = await f.start();
    await page.goto(`${d.url}/`);
    const row = page.getByRole("list", { name: "Sessions" }).getByRole("listitem").filter({ hasText: "closed" }).first();
    await row.getByRole("button").first().click({ timeout: UI_MS });
    await transcriptOf(page).getByLabel("Turn ended").filter({ hasText: "Cancelled" }).waitFor({ timeout: UI_MS });
    await until(async () => (await page.getByRole("status", { name: "Connection" }).textContent())?.trim() === "live", UI_MS, "live after the restart");
    await step(page, "11-restarted");

    await page.emulateMedia({ colorScheme: "dark" });
    await step(page, "12-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await step(page, "13-phone");
  }, 120_000);

  test("a token-protected daemon: the token prompt", async () => {
    await d?.[Symbol.asyncDispose]();
    d = await f.start(["--token", "walkthrough-token"]);
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await w.page.getByLabel("Bearer token", { exact: true }).waitFor({ timeout: UI_MS });
    await step(w.page, "14-token");
    await expectClean(w, { allowStatuses: [401] });
  });
});
