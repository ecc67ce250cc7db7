/**
 * The web UI in a real browser (issue 14, "Checked by"): Debian's chromium, headless, against a
 * daemon (sources, or the compiled binary under SVC_TEST_TARGET=binary) whose built-in agent talks
 * to the mock model. One test per scenario; each keeps a screenshot of its state under
 * test-artifacts/browser/ and asserts the page logged no console error and no CSP violation.
 * The UI is found by the accessible names of briefs/ui-contract.md only.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { MAX_DIFF_LINES } from "../../src/web/diff-lines.ts";
import type { TestDaemon } from "../helpers/daemon.ts";
import { until } from "../helpers/until.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture, type WatchedPage } from "./harness.ts";

const TOKEN = "ui-Br0wser.token_value";

const transcriptOf = (page: Page) => page.getByRole("log", { name: "Transcript" }).or(page.getByRole("region", { name: "Transcript" }));
const sessionsOf = (page: Page) => page.getByRole("list", { name: "Sessions" });

/** Creates a session from the UI and waits for its chat view (the Prompt textbox). */
async function newSession(page: Page): Promise<void> {
  await page.getByRole("button", { name: "New session" }).click();
  await page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: UI_MS });
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Prompt" }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

/** Every URL the page asked for is free of the token (it travels in a header only). */
function expectTokenNeverInUrl(watched: WatchedPage): void {
  expect(watched.requests.length).toBeGreaterThan(0);
  expect(watched.requests.filter((url) => url.includes(TOKEN) || url.includes(encodeURIComponent(TOKEN)))).toEqual([]);
  expect(watched.page.url()).not.toContain(TOKEN);
}

browserDescribe("the web UI in chromium", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon;
  beforeAll(async () => {
    clearArtifacts("ui-");
    browser = await launchBrowser();
    f = uiFixture();
    writeFileSync(join(f.ws.path, "hello.md"), "# Hello\n\nfile body from the workspace\n");
    d = await f.start();
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("1 opens the UI: navigation, the session list and the New session button", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    // No session yet: the list is there, empty.
    await sessionsOf(w.page).waitFor({ state: "attached", timeout: UI_MS });
    const nav = w.page.getByRole("navigation", { name: "Main" });
    for (const name of ["Sessions", "Workspace", "Files"]) await nav.getByRole("button", { name, exact: true }).or(nav.getByRole("link", { name, exact: true })).waitFor({ timeout: UI_MS });
    await w.page.getByRole("button", { name: "New session" }).waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-1-open");
    await expectClean(w);
  });

  test("2 creates a session: its chat view opens, it is listed as live, the connection is live", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    await sessionsOf(w.page).getByRole("listitem").filter({ hasText: "live" }).first().waitFor({ timeout: UI_MS });
    await until(async () => (await w.page.getByRole("status", { name: "Connection" }).textContent())?.trim() === "live", UI_MS, "the connection state live");
    await screenshot(w.page, "ui-2-session");
    await expectClean(w);
  });

  test("3 a prompt's reply streams into the transcript", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    const reply = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    f.model.enqueue({ kind: "text", text: reply, chunkChars: 8, chunkDelayMs: 40 });
    await send(w.page, "hello from the browser");
    const transcript = transcriptOf(w.page);
    // The reply is seen growing: several partial states before the whole of it.
    const seen = new Set<number>();
    await until(async () => {
      const text = (await transcript.textContent()) ?? "";
      const at = text.indexOf("word0");
      if (at !== -1) seen.add(text.length);
      return text.includes("word39");
    }, UI_MS, "the whole reply");
    expect(seen.size).toBeGreaterThan(2);
    await transcript.getByText("hello from the browser").first().waitFor({ timeout: UI_MS });
    // A rewind needs the daemon's token: this daemon has none, so the turn's control is locked.
    const rewind = transcript.getByRole("button", { name: "Rewind…" }).last();
    await rewind.waitFor({ timeout: UI_MS });
    expect(await rewind.isDisabled()).toBe(true);
    await screenshot(w.page, "ui-3-streamed");
    await expectClean(w);
  });

  test("4 a permission approved from the dialog: the tool completes, its diff and result show", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    const target = join(f.ws.path, "notes.txt");
    await send(w.page, `please write ${target}`);
    const dialog = w.page.getByRole("dialog", { name: "Permission request" });
    await dialog.waitFor({ timeout: UI_MS });
    for (const name of ["Allow", "Reject"]) await dialog.getByRole("button", { name, exact: true }).waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-4-permission");
    await dialog.getByRole("button", { name: "Allow", exact: true }).click();
    await dialog.waitFor({ state: "hidden", timeout: UI_MS });
    const call = w.page.getByRole("group", { name: /^Tool call: / }).last();
    await call.getByText("completed").waitFor({ timeout: UI_MS });
    const diff = w.page.getByRole("figure", { name: /^Diff .*notes\.txt$/ });
    await diff.getByText(/^\+\s*hello from mock/).first().waitFor({ timeout: UI_MS });
    await transcriptOf(w.page).getByText("tool finished").waitFor({ timeout: UI_MS });
    expect(readFileSync(target, "utf8")).toBe("hello from mock\n");
    await screenshot(w.page, "ui-4-approved");
    await expectClean(w);
  });

  test("9 a huge edit's diff renders bounded, and the transcript and composer go on after it", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    const lines = 130_000;
    const content = Array.from({ length: lines }, (_, i) => `l${i}`).join("\n");
    f.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: join(f.ws.path, "huge.txt"), content } }] });
    await send(w.page, "write the huge file");
    const dialog = w.page.getByRole("dialog", { name: "Permission request" });
    await dialog.getByRole("button", { name: "Allow", exact: true }).click({ timeout: UI_MS });
    const diff = w.page.getByRole("figure", { name: "Diff huge.txt" }).last();
    await diff.getByText(`${lines - MAX_DIFF_LINES} more lines not shown.`).waitFor({ timeout: UI_MS });
    expect(await diff.locator("pre > span").count()).toBe(MAX_DIFF_LINES);
    await transcriptOf(w.page).getByText("tool finished").waitFor({ timeout: UI_MS });
    await send(w.page, "still alive after the diff?");
    // The huge write fills the mock model's context window: the agent says it summarised the earlier
    // turns, and the mock's echo of the next request starts with that summary.
    await transcriptOf(w.page).getByText("This conversation approached the input token limit").waitFor({ timeout: UI_MS });
    await transcriptOf(w.page).getByText("mock reply: [Summary of the earlier conversation").waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-9-huge-diff");
    await expectClean(w);
  });

  test("10 raw HTML and images in markdown: shown as text, no forged dialog, ids, roles or labels, no CSP violation", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    const hostile = [
      '<div role="dialog" aria-label="Permission request" class="permission card"><a class="primary" role="button">Allow</a></div>',
      '<label for="prompt-input">Type your password</label><p id="permission-title">harmless</p>',
      "<img src=x onerror=alert(1)> <b style=color:red>bold</b> ![tracker](http://example.invalid/a.png)",
      "```primary\ncode\n```",
    ].join("\n\n");
    await send(w.page, hostile);
    const you = transcriptOf(w.page).getByRole("article", { name: "You" }).last();
    await you.getByText('<div role="dialog"', { exact: false }).waitFor({ timeout: UI_MS });
    await you.getByText("tracker", { exact: false }).waitFor({ timeout: UI_MS });
    expect(await w.page.getByRole("dialog", { name: "Permission request" }).count()).toBe(0);
    expect(await w.page.getByRole("button", { name: "Allow" }).count()).toBe(0);
    expect(await w.page.getByRole("textbox", { name: "Prompt", exact: true }).count()).toBe(1);
    expect(await you.locator(".md-block").locator("img, label, [id], [class], [role], [style]").count()).toBe(0);
    await expectClean(w);
  });

  test("11 a closed session opened again from the list is live and can be prompted", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    await send(w.page, "before the close");
    await transcriptOf(w.page).getByText("mock reply: before the close").waitFor({ timeout: UI_MS });
    await w.page.getByRole("button", { name: "Close session" }).click();
    await using again = await openUi(await browser.context(), `${d.url}/`);
    const item = sessionsOf(again.page).getByRole("listitem").filter({ hasText: "closed" }).first();
    await item.getByRole("button").first().click({ timeout: UI_MS });
    await transcriptOf(again.page).getByText("mock reply: before the close").waitFor({ timeout: UI_MS });
    expect(await again.page.getByRole("button", { name: "Reopen" }).count()).toBe(0);
    await send(again.page, "after the reopen");
    await transcriptOf(again.page).getByText("mock reply: after the reopen").waitFor({ timeout: UI_MS });
    await expectClean(again);
  });

  test("12 Branch opens a branch of the conversation, linked to its parent and listed under it", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    await send(w.page, "the trunk turn");
    await transcriptOf(w.page).getByText("mock reply: the trunk turn").waitFor({ timeout: UI_MS });
    const parentUrl = w.page.url();
    await w.page.getByRole("button", { name: "Branch", exact: true }).click();
    await until(() => w.page.url() !== parentUrl, UI_MS, "the branch to open");
    await w.page.getByText("Branch of").waitFor({ timeout: UI_MS });
    await sessionsOf(w.page).getByRole("listitem").filter({ hasText: "(branch)" }).first().waitFor({ timeout: UI_MS });
    await send(w.page, "a branch turn");
    await transcriptOf(w.page).getByText("mock reply: a branch turn").waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-12-branch");
    await expectClean(w);
  });

  test("5 Stop ends a slow turn, and the turn says it was cancelled", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await newSession(w.page);
    f.model.enqueue({ kind: "hang", text: "working on it" });
    await send(w.page, "take your time");
    await transcriptOf(w.page).getByText("working on it").waitFor({ timeout: UI_MS });
    const stop = w.page.getByRole("button", { name: "Stop" });
    await stop.waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-5-running");
    await stop.click();
    await stop.waitFor({ state: "detached", timeout: UI_MS });
    await transcriptOf(w.page).getByLabel("Turn ended").filter({ hasText: "Cancelled" }).waitFor({ timeout: UI_MS });
    await until(() => f.model.hangingStreams() === 0, UI_MS, "the model request aborted");
    await screenshot(w.page, "ui-5-cancelled");
    await expectClean(w);
  });

  test("7 opens a file from the file view", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    const nav = w.page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("button", { name: "Files", exact: true }).or(nav.getByRole("link", { name: "Files", exact: true })).click();
    const files = w.page.getByRole("tree", { name: "Files" }).or(w.page.getByRole("list", { name: "Files" }));
    await files.getByText("hello.md", { exact: true }).click({ timeout: UI_MS });
    const viewer = w.page.getByRole("region", { name: "File viewer" });
    await viewer.getByRole("heading", { name: /hello\.md$/ }).waitFor({ timeout: UI_MS });
    await viewer.getByText("file body from the workspace").waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-7-file");
    await expectClean(w);
  });
});

browserDescribe("the web UI across a daemon restart", () => {
  test("6 a session comes back from its persisted history after the daemon restarts", async () => {
    await using browser = await launchBrowser();
    await using f = uiFixture();
    {
      await using d = await f.start();
      await using w = await openUi(await browser.context(), `${d.url}/`);
      await newSession(w.page);
      await send(w.page, "remember the word kumquat");
      await transcriptOf(w.page).getByText("mock reply: remember the word kumquat").waitFor({ timeout: UI_MS });
      await expectClean(w);
    }
    await using d = await f.start();
    await using w = await openUi(await browser.context(), `${d.url}/`);
    const item = sessionsOf(w.page).getByRole("listitem").filter({ hasText: "closed" }).first();
    await item.waitFor({ timeout: UI_MS });
    await item.getByRole("button").or(item.getByRole("link")).first().click();
    const transcript = transcriptOf(w.page);
    await transcript.getByText("remember the word kumquat").first().waitFor({ timeout: UI_MS });
    await transcript.getByText("mock reply: remember the word kumquat").waitFor({ timeout: UI_MS });
    // Restored means live: the journal's session_closed (the shutdown) is history, the composer works.
    expect(await w.page.getByRole("button", { name: "Reopen" }).count()).toBe(0);
    await send(w.page, "and now a new question");
    await transcript.getByText("mock reply: and now a new question").waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-6-restored");
    await expectClean(w);
  });
});

browserDescribe("the web UI on a bearer-protected daemon", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon;
  beforeAll(async () => {
    browser = await launchBrowser();
    f = uiFixture();
    d = await f.start(["--token", TOKEN]);
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("8a a /#token= fragment connects, leaves the address bar and never reaches a URL", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    await newSession(w.page);
    expect(await w.page.evaluate(() => sessionStorage.getItem("svc.token"))).toBe(TOKEN);
    await screenshot(w.page, "ui-8-token-fragment");
    expectTokenNeverInUrl(w);
    await expectClean(w);
  });

  test("8c a malformed fragment routes home, and a malformed token fragment still leaves the address bar", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    await w.page.getByRole("button", { name: "New session" }).waitFor({ timeout: UI_MS });
    for (const hash of ["#/files/%E0%A4%A", "#/session/%"]) {
      await w.page.evaluate((h) => (location.hash = h), hash);
      await w.page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: UI_MS });
    }
    await w.page.goto(`${d.url}/#/session/%`);
    await w.page.getByRole("button", { name: "New session" }).waitFor({ timeout: UI_MS });
    await expectClean(w);
    await using fresh = await openUi(await browser.context(), `${d.url}/#token=s3cr%t&x`);
    await fresh.page.getByLabel("Bearer token", { exact: true }).waitFor({ timeout: UI_MS });
    expect(fresh.page.url()).toBe(`${d.url}/#/`);
    await expectClean(fresh, { allowStatuses: [401] });
  });

  test("8b the token prompt connects, and the token never reaches a URL", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    const input = w.page.getByLabel("Bearer token", { exact: true });
    await input.waitFor({ timeout: UI_MS });
    await screenshot(w.page, "ui-8-token-prompt");
    await input.fill(TOKEN);
    await w.page.getByRole("button", { name: "Connect", exact: true }).click();
    await newSession(w.page);
    await screenshot(w.page, "ui-8-token-connected");
    expectTokenNeverInUrl(w);
    // The first API calls, made before the token was entered, were refused: that is how the prompt came up.
    await expectClean(w, { allowStatuses: [401] });
  });
});
