/**
 * The workspace switcher (issue 25) in chromium, against the sources or the compiled binary
 * (SVC_TEST_TARGET=binary): register a second workspace from the UI, switch to it, run a session
 * there (its sessions, files and status are that workspace's; the choice survives a reload), list
 * every workspace's sessions at once, switch back, rename it, register an untrusted one (it says why
 * and offers no session), stop the second's agent after the daemon's preview naming its session,
 * remove the second with the confirmation naming the live sessions that close (confirmed again when
 * another client changed them), fall back to the primary when the
 * current workspace is removed by another client or the remembered one is gone; without a daemon
 * token every change is locked, with the reason.
 * Screenshots under test-artifacts/browser/ (`ws-*`); every state passes the accessibility audit.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { changedRules, updateTrustStore } from "../../src/trust/index.ts";
import type { TestDaemon } from "../helpers/daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { audit } from "./a11y.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture } from "./harness.ts";

const TOKEN = "ws-switch-T0ken";

const switcher = (page: Page) => page.getByRole("button", { name: /^Workspace: / });
const panel = (page: Page) => page.getByRole("region", { name: "Workspaces" });
const sessionsList = (page: Page) => page.getByRole("list", { name: "Sessions" });
const transcriptOf = (page: Page) => page.getByRole("log", { name: "Transcript" });

async function openPanel(page: Page): Promise<void> {
  if ((await switcher(page).getAttribute("aria-expanded")) !== "true") await switcher(page).click();
  await panel(page).waitFor({ timeout: UI_MS });
}

/** Chooses the workspace whose row holds `name` (the panel closes). */
async function choose(page: Page, name: string): Promise<void> {
  await openPanel(page);
  await panel(page).getByRole("button", { name: new RegExp(`^${name}`) }).click();
  await switcher(page).getByText(name).waitFor({ timeout: UI_MS });
}

async function step(page: Page, name: string): Promise<void> {
  await screenshot(page, `ws-${name}`);
  expect({ step: name, violations: await audit(page) }).toEqual({ step: name, violations: [] });
}

browserDescribe("the workspace switcher", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon;
  let second: TempDir;
  let third: TempDir;
  beforeAll(async () => {
    clearArtifacts("ws-");
    browser = await launchBrowser();
    f = uiFixture();
    second = tempDir("svc-browser-ws2-");
    third = tempDir("svc-browser-ws3-");
    writeFileSync(join(f.ws.path, "primary-only.txt"), "one\n");
    writeFileSync(join(second.path, "second-only.txt"), "two\n");
    // The second folder is trusted in the daemon's trust store (what `svc trust` writes); the third is not.
    updateTrustStore(f.home.path, (rules) => changedRules(rules, realpathSync(second.path), "trusted"));
    d = await f.start(["--token", TOKEN, "--trust-workspace"]);
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await second?.[Symbol.asyncDispose]();
    await third?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("register, switch, a session in the second workspace, rename, untrusted, remove, fall back", async () => {
    const secondPath = realpathSync(second.path);
    const thirdPath = realpathSync(third.path);
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    const page = w.page;
    const primaryName = f.ws.path.split("/").pop()!;
    await switcher(page).getByText(primaryName).waitFor({ timeout: UI_MS });
    expect(await switcher(page).getAttribute("title")).toBe(realpathSync(f.ws.path));

    // Register the second folder, kept across restarts, under a display name: it becomes current.
    await openPanel(page);
    expect(await panel(page).getByRole("listitem").count()).toBe(1);
    await panel(page).getByLabel("Folder (absolute path)").fill(secondPath);
    await panel(page).getByLabel("Display name (optional)").fill("Second");
    await step(page, "01-register");
    await panel(page).getByRole("button", { name: "Add workspace" }).click();
    await switcher(page).getByText("Second").waitFor({ timeout: UI_MS });
    expect(await switcher(page).getAttribute("title")).toBe(secondPath);
    await page.getByText("No sessions yet.", { exact: false }).waitFor({ timeout: UI_MS });

    // A session there: its agent runs in the second folder.
    await page.getByRole("button", { name: "New session" }).click();
    await page.getByRole("textbox", { name: "Prompt" }).fill("hello from the second workspace");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await transcriptOf(page).getByLabel("Turn ended").waitFor({ timeout: UI_MS });
    const sessionId = decodeURIComponent(page.url().split("#/session/")[1]!);
    const listed = await d.fetch(`/workspaces/${encodeURIComponent(secondPath)}/sessions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await listed.json()) as { sessions: { sessionId: string }[] }).sessions.map((s) => s.sessionId)).toContain(sessionId);
    await page.locator('[aria-label="Session status"]').getByText("Second").waitFor({ timeout: UI_MS });
    await sessionsList(page).getByRole("button", { name: /hello from the second/ }).waitFor({ timeout: UI_MS });
    await step(page, "02-session");

    // Pinned: it leads the list under "Pinned", and the daemon's organized list says so.
    const row = sessionsList(page).getByRole("listitem").filter({ hasText: "hello from the second" });
    await row.getByRole("button", { name: "Pin", exact: true }).click();
    await row.getByRole("button", { name: "Unpin", pressed: true }).waitFor({ timeout: UI_MS });
    expect(await sessionsList(page).locator(".group-title").first().textContent()).toBe("Pinned");
    const organized = await d.fetch(`/workspaces/${encodeURIComponent(secondPath)}/sessions?view=organized`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await organized.json()) as { sessions: { sessionId: string; isPinned?: boolean }[] }).sessions.find((s) => s.sessionId === sessionId)?.isPinned).toBe(true);

    // Files are the second folder's.
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Files" }).click();
    const tree = page.getByRole("tree", { name: "Files" });
    await tree.getByText("second-only.txt").waitFor({ timeout: UI_MS });
    expect(await tree.getByText("primary-only.txt").count()).toBe(0);

    // The choice survives a reload.
    await page.reload();
    await switcher(page).getByText("Second").waitFor({ timeout: UI_MS });
    await page.getByRole("tree", { name: "Files" }).getByText("second-only.txt").waitFor({ timeout: UI_MS });

    // Back on the primary: its own sessions and files.
    await choose(page, primaryName);
    await page.getByText("No sessions yet.", { exact: false }).waitFor({ timeout: UI_MS });
    await page.getByRole("tree", { name: "Files" }).getByText("primary-only.txt").waitFor({ timeout: UI_MS });
    // All workspaces: the second's session listed from the primary, its workspace named on the row.
    await page.getByRole("checkbox", { name: "All workspaces" }).check();
    const everywhere = sessionsList(page).getByRole("button", { name: /hello from the second/ });
    await everywhere.waitFor({ timeout: UI_MS });
    expect(await everywhere.locator(".badge.workspace").textContent()).toBe("Second");
    await page.getByRole("checkbox", { name: "All workspaces" }).uncheck();
    await page.getByText("No sessions yet.", { exact: false }).waitFor({ timeout: UI_MS });
    // The primary runs no agent: nothing to stop, and nothing offered.
    await openPanel(page);
    await panel(page).getByRole("button", { name: `Stop agent of ${primaryName}` }).click();
    await panel(page).getByRole("group", { name: `Stop the agent of ${primaryName}?` }).getByText("Nothing to stop", { exact: false }).waitFor({ timeout: UI_MS });
    expect(await panel(page).getByRole("button", { name: "Stop agent", exact: true }).count()).toBe(0);
    await panel(page).getByRole("button", { name: "Close", exact: true }).click();
    await choose(page, "Second");
    await sessionsList(page).getByRole("button", { name: /hello from the second/ }).waitFor({ timeout: UI_MS });

    // Rename.
    await openPanel(page);
    await panel(page).getByRole("button", { name: "Rename Second" }).click();
    await panel(page).getByLabel(`Display name of ${secondPath}`).fill("Renamed");
    await panel(page).getByRole("button", { name: "Save" }).click();
    await switcher(page).getByText("Renamed").waitFor({ timeout: UI_MS });

    // An untrusted folder: registered (for this run only), it says why and offers no session.
    await panel(page).getByLabel("Folder (absolute path)").fill(thirdPath);
    await panel(page).getByLabel("Keep it after the daemon restarts").uncheck();
    await panel(page).getByRole("button", { name: "Add workspace" }).click();
    await switcher(page).getByText("untrusted").waitFor({ timeout: UI_MS });
    await page.getByText(`svc trust ${thirdPath}`).first().waitFor({ timeout: UI_MS });
    expect(await page.getByRole("button", { name: /New session/ }).isDisabled()).toBe(true);
    await openPanel(page);
    await step(page, "03-untrusted");

    // Stop the second's agent, its live session named in the daemon's preview: the session closes.
    await choose(page, "Renamed");
    await openPanel(page);
    await panel(page).getByRole("button", { name: "Stop agent of Renamed" }).click();
    const stopping = panel(page).getByRole("group", { name: "Stop the agent of Renamed?" });
    await stopping.getByText("This session closes, a running turn included: hello from the second workspace.", { exact: false }).waitFor({ timeout: UI_MS });
    await step(page, "04-stop");
    await stopping.getByRole("button", { name: "Stop agent", exact: true }).click();
    await until(async () => {
      const status = await d.fetch(`/session/${encodeURIComponent(sessionId)}/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
      return status.status === 404;
    }, UI_MS, "the stopped agent's session to close");

    // Remove the second: no session open in it now; the current one stays.
    await openPanel(page);
    await panel(page).getByRole("button", { name: "Remove Renamed" }).click();
    const confirm = panel(page).getByRole("group", { name: "Remove Renamed?" });
    await confirm.getByText("No session is open in it.", { exact: false }).waitFor({ timeout: UI_MS });
    await step(page, "05-remove");
    // Another client opens a session there before the confirmation: the daemon refuses the removal
    // the user confirmed, and the dialog names the new session before it is confirmed again.
    const other = await d.fetch("/session", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ cwd: secondPath, sessionScope: "thread" }),
    });
    expect(other.status).toBe(200);
    await confirm.getByRole("button", { name: "Remove Renamed" }).click();
    await confirm.getByRole("alert").getByText("The sessions open in it changed", { exact: false }).waitFor({ timeout: UI_MS });
    await confirm.getByText("This live session closes", { exact: false }).waitFor({ timeout: UI_MS });
    await confirm.getByRole("button", { name: "Remove Renamed" }).click();
    await switcher(page).getByText(primaryName).waitFor({ timeout: UI_MS });
    await openPanel(page);
    await until(async () => (await panel(page).getByText(secondPath).count()) === 0, UI_MS, "the second workspace gone from the list");
    // Its history stays: the session is persisted, readable through its transcript.
    const transcript = await d.fetch(`/session/${encodeURIComponent(sessionId)}/transcript`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(transcript.status).toBe(200);

    // The current workspace removed by another client: the next list refresh goes back to the primary.
    await choose(page, "svc-browser-ws3");
    const removed = await d.fetch(`/workspaces/${encodeURIComponent(thirdPath)}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(removed.status).toBe(200);
    await page.getByRole("checkbox", { name: "Show archived" }).check();
    await page.getByRole("alert").getByText(/no longer served/).waitFor({ timeout: UI_MS });
    await switcher(page).getByText(primaryName).waitFor({ timeout: UI_MS });
    await page.getByRole("button", { name: "Dismiss" }).click();
    await page.getByRole("checkbox", { name: "Show archived" }).uncheck();

    // A remembered workspace the daemon no longer serves: back to the primary, said once.
    await page.evaluate(() => localStorage.setItem("svc.workspace", "0123456789abcdef"));
    await page.reload();
    await page.getByRole("alert").getByText(/no longer served/).waitFor({ timeout: UI_MS });
    await switcher(page).getByText(primaryName).waitFor({ timeout: UI_MS });
    expect(await page.evaluate(() => localStorage.getItem("svc.workspace"))).toBeNull();
    // The one 404: the list of the workspace removed by the other client; the one 409: the removal refused.
    await expectClean(w, { allowStatuses: [404, 409] });
  }, 120_000);
});

browserDescribe("the workspace switcher without a daemon token", () => {
  test("lists the workspaces; registering, renaming, removing and stopping are locked, with the reason", async () => {
    await using browser = await launchBrowser();
    await using f = uiFixture();
    await using d = await f.start();
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await openPanel(w.page);
    expect(await panel(w.page).getByRole("listitem").count()).toBe(1);
    expect(await panel(w.page).getByRole("button", { name: "Add workspace" }).isDisabled()).toBe(true);
    expect(await panel(w.page).getByLabel("Folder (absolute path)").isDisabled()).toBe(true);
    expect(await panel(w.page).getByRole("button", { name: /^Stop agent of / }).isDisabled()).toBe(true);
    expect(await panel(w.page).locator("#ws-locked").textContent()).toContain("--token");
    await screenshot(w.page, "ws-locked");
    expect(await audit(w.page)).toEqual([]);
    await expectClean(w);
  });
});
