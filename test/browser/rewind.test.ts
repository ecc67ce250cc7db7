/**
 * The rewind control in chromium, on a daemon with a token (a rewind is a strict route): a turn that
 * wrote a file offers "Rewind…", whose preview names the file; confirmed, the file is gone and the
 * conversation goes on from before the turn. A file changed outside the session since is named,
 * and only "Rewind anyway" overwrites it. (Without a token the control is locked: ui.test.ts.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { TestDaemon } from "../helpers/daemon.ts";
import { until } from "../helpers/until.ts";
import { audit } from "./a11y.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture } from "./harness.ts";

const TOKEN = "rewind-browser-token";
const transcriptOf = (page: Page) => page.getByRole("log", { name: "Transcript" });

/** Sends `please write <path>` (the mock model's write), allows it, and waits for the turn's end. */
async function writeTurn(page: Page, path: string): Promise<void> {
  const ended = transcriptOf(page).getByLabel("Turn ended");
  const before = await ended.count();
  await page.getByRole("textbox", { name: "Prompt" }).fill(`please write ${path}`);
  await page.getByRole("button", { name: "Send", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Permission request" });
  await dialog.getByRole("button", { name: "Allow", exact: true }).click({ timeout: UI_MS });
  await until(async () => existsSync(path) && (await ended.count()) > before, UI_MS, "the write and the turn's end");
}

browserDescribe("the rewind control", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon;
  beforeAll(async () => {
    clearArtifacts("rewind-");
    browser = await launchBrowser();
    f = uiFixture();
    d = await f.start(["--token", TOKEN]);
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("a turn's file is put back after a preview naming it; a file changed outside is overwritten only when asked", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    const page = w.page;
    await page.getByRole("button", { name: "New session" }).click();
    const first = join(f.ws.path, "first.txt");
    await writeTurn(page, first);
    const turn = transcriptOf(page).getByRole("button", { name: "Rewind…" }).last();
    await turn.click({ timeout: UI_MS });
    const panel = page.getByRole("group", { name: "Rewind to before this turn" });
    await panel.getByRole("list", { name: "Files the rewind puts back" }).getByText("first.txt").waitFor({ timeout: UI_MS });
    expect(await panel.getByRole("listitem").textContent()).toContain("removed again");
    await screenshot(page, "rewind-preview");
    expect(await audit(page)).toEqual([]);
    await panel.getByRole("button", { name: "Rewind", exact: true }).click();
    await panel.getByRole("status").getByText("1 file put back", { exact: false }).waitFor({ timeout: UI_MS });
    expect(existsSync(first)).toBe(false);
    // The transcript tells it too, from the daemon's session_rewound.
    await transcriptOf(page).getByText("Rewound to before a turn: 1 file put back; the conversation goes on from before that turn.").waitFor({ timeout: UI_MS });

    // A second turn writes a file that is then changed outside the session: the rewind names it.
    await page.getByRole("group", { name: "Rewind to before this turn" }).getByRole("button", { name: "Close" }).click();
    const second = join(f.ws.path, "second.txt");
    await writeTurn(page, second);
    writeFileSync(second, "changed by hand\n");
    await transcriptOf(page).getByRole("button", { name: "Rewind…" }).last().click({ timeout: UI_MS });
    const again = page.getByRole("group", { name: "Rewind to before this turn" });
    await again.getByRole("button", { name: "Rewind", exact: true }).click({ timeout: UI_MS });
    await again.getByRole("alert").getByText("Changed outside this session since", { exact: false }).waitFor({ timeout: UI_MS });
    expect(existsSync(second)).toBe(true);
    await again.getByRole("button", { name: "Rewind anyway" }).click();
    await again.getByRole("status").waitFor({ timeout: UI_MS });
    expect(existsSync(second)).toBe(false);
    // The one 409: the conflict the daemon refused.
    await expectClean(w, { allowStatuses: [409] });
  });
});
