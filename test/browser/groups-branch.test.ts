/**
 * Session groups and "Branch from here" in chromium (issue 27, item 8), against a daemon whose
 * built-in agent talks to the mock model:
 * - groups are created, renamed, moved and deleted from the session list, a session is put into
 *   one with its row's select, a refused name (a duplicate, 409; a hidden character, 400) is shown
 *   beside the form, and the groups, their order and the session's group survive a daemon restart;
 * - "Branch from here" on the first of two turns opens a branch that shows (and continues from)
 *   the first turn only; while a turn runs the control is disabled and says why.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { until } from "../helpers/until.ts";
import { audit } from "./a11y.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture } from "./harness.ts";

const transcriptOf = (page: Page) => page.getByRole("log", { name: "Transcript" });
const sessionsOf = (page: Page) => page.getByRole("list", { name: "Sessions" });
const groupList = (page: Page, name: string) => sessionsOf(page).getByRole("list", { name, exact: true });

/** The group sections' names, in the order the list shows them. */
const groupNames = (page: Page) => sessionsOf(page).locator(".group-name").allTextContents();

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Prompt" }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

/** Submits the "New group" form with `name`. */
async function createGroup(page: Page, name: string): Promise<Locator> {
  await page.getByRole("button", { name: "New group" }).click();
  const form = page.getByRole("form", { name: "New group" });
  await form.getByRole("textbox", { name: "Group name" }).fill(name);
  await form.getByRole("button", { name: "Create" }).click();
  return form;
}

/** The action `label` ("Rename group", "Move group up", …) of the group named `name`. */
const groupAction = (page: Page, label: string, name: string) => sessionsOf(page).getByRole("button", { name: label, exact: true, description: name });

browserDescribe("session groups and branches in the web UI", () => {
  let browser: Browser;
  let f: UiFixture;
  beforeAll(async () => {
    clearArtifacts("groups-");
    browser = await launchBrowser();
    f = uiFixture();
  });
  afterAll(async () => {
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("groups are created, renamed, reordered and deleted; a session moves into one; all of it survives a restart", async () => {
    const first = await f.start();
    let port = first.port;
    try {
      await using w = await openUi(await browser.context(), `${first.url}/`);
      const page = w.page;
      await page.getByRole("button", { name: "New session" }).click();
      await page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: UI_MS });
      await send(page, "hello groups");
      await transcriptOf(page).getByText("mock reply: hello groups").waitFor({ timeout: UI_MS });
      // Named on the daemon (a fresh browser after the restart has no remembered first prompt).
      await page.getByRole("button", { name: "Rename", exact: true }).click();
      await page.getByRole("textbox", { name: "Session name" }).fill("grouped session");
      await page.getByRole("button", { name: "Save" }).click();
      await sessionsOf(page).getByText("grouped session").waitFor({ timeout: UI_MS });

      await createGroup(page, "Alpha");
      await groupList(page, "Alpha").waitFor({ state: "attached", timeout: UI_MS });
      await createGroup(page, "Beta");
      await groupList(page, "Beta").waitFor({ state: "attached", timeout: UI_MS });
      expect(await groupNames(page)).toEqual(["Alpha", "Beta"]);

      // Refusals stay beside the form, with what was typed: a taken name (409), a hidden character (400).
      const dup = await createGroup(page, "beta");
      await dup.getByRole("alert").getByText("already", { exact: false }).waitFor({ timeout: UI_MS });
      await dup.getByRole("textbox", { name: "Group name" }).fill("ev\u202eil");
      await dup.getByRole("button", { name: "Create" }).click();
      await dup.getByRole("alert").getByText("control characters", { exact: false }).waitFor({ timeout: UI_MS });
      await dup.getByRole("button", { name: "Cancel" }).click();

      // Reorder (keyboard), rename.
      await groupAction(page, "Move group up", "Beta").focus();
      await page.keyboard.press("Enter");
      await until(async () => JSON.stringify(await groupNames(page)) === JSON.stringify(["Beta", "Alpha"]), UI_MS, "Beta moved above Alpha");
      await groupAction(page, "Rename group", "Alpha").click();
      const rename = page.getByRole("form", { name: "Rename group" });
      await rename.getByRole("textbox", { name: "Group name" }).fill("Gamma");
      await rename.getByRole("button", { name: "Save" }).click();
      await until(async () => JSON.stringify(await groupNames(page)) === JSON.stringify(["Beta", "Gamma"]), UI_MS, "Alpha renamed Gamma");

      // The session goes into Gamma with its row's select.
      await sessionsOf(page).getByRole("combobox", { name: "Group" }).first().selectOption({ label: "Gamma" });
      await groupList(page, "Gamma").getByRole("listitem").getByText("grouped session").waitFor({ timeout: UI_MS });
      await screenshot(page, "groups-1-grouped");
      expect(await audit(page)).toEqual([]);
      await expectClean(w, { allowStatuses: [400, 409] });

      // A collapsed section hides its sessions; expanding shows them again.
      const toggle = sessionsOf(page).getByRole("button", { name: /Gamma/ }).and(page.locator("[aria-expanded]"));
      await toggle.click();
      await until(async () => (await toggle.getAttribute("aria-expanded")) === "false" && (await groupList(page, "Gamma").count()) === 0, UI_MS, "Gamma collapsed");
      await toggle.click();
      await groupList(page, "Gamma").getByText("grouped session").waitFor({ timeout: UI_MS });
    } finally {
      await first[Symbol.asyncDispose]();
    }

    // A restart on the same data and port: the groups, their order and the session's group are back.
    await using again = await f.start(["--port", String(port)]);
    port = again.port;
    await using w = await openUi(await browser.context(), `${again.url}/`);
    const page = w.page;
    await groupList(page, "Gamma").getByRole("listitem").getByText("grouped session").waitFor({ timeout: UI_MS });
    expect(await groupNames(page)).toEqual(["Beta", "Gamma"]);

    // Deleting Gamma (after the confirmation) leaves its session ungrouped, still listed.
    await groupAction(page, "Delete group", "Gamma").click();
    const confirm = page.getByRole("group", { name: "Delete group" });
    await confirm.getByText("Its session becomes ungrouped", { exact: false }).waitFor({ timeout: UI_MS });
    await confirm.getByRole("button", { name: "Delete", exact: true }).click();
    await until(async () => JSON.stringify(await groupNames(page)) === JSON.stringify(["Beta"]), UI_MS, "Gamma deleted");
    const row = sessionsOf(page).getByRole("listitem").filter({ hasText: "grouped session" });
    await row.waitFor({ timeout: UI_MS });
    expect(await groupList(page, "Beta").getByText("grouped session").count()).toBe(0);
    // A row's group select shows when the row is pointed at (or focused).
    await row.hover();
    expect(await row.getByRole("combobox", { name: "Group" }).inputValue()).toBe("");
    await screenshot(page, "groups-2-after-restart-and-delete");
    await expectClean(w);
  }, 90_000);

  test("Branch from here on the first of two turns opens a branch holding the first turn only; not while a turn runs", async () => {
    await using d = await f.start();
    await using w = await openUi(await browser.context(), `${d.url}/`);
    const page = w.page;
    await page.getByRole("button", { name: "New session" }).click();
    await page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: UI_MS });
    const transcript = transcriptOf(page);
    await send(page, "first question");
    await transcript.getByText("mock reply: first question").waitFor({ timeout: UI_MS });

    // The second turn streams slowly: meanwhile the first turn's control is disabled and says why.
    f.model.enqueue({ kind: "text", text: "mock reply: second question, slowly streamed", chunkChars: 1, chunkDelayMs: 100 });
    await send(page, "second question");
    const firstBranch = transcript.getByRole("button", { name: "Branch from here" }).first();
    await until(() => firstBranch.isDisabled(), UI_MS, "Branch from here disabled while the turn runs");
    expect(await firstBranch.getAttribute("aria-describedby")).toBeTruthy();
    await transcript.getByText("Waits for the running turn to end.").first().waitFor({ timeout: UI_MS });
    await transcript.getByText("mock reply: second question, slowly streamed").waitFor({ timeout: UI_MS });
    await until(async () => (await transcript.getByRole("button", { name: "Branch from here" }).count()) === 2, UI_MS, "both turns ended");
    await until(async () => !(await firstBranch.isDisabled()), UI_MS, "Branch from here enabled again");

    const parentUrl = page.url();
    await firstBranch.click();
    await until(() => page.url() !== parentUrl, UI_MS, "the branch to open");
    await page.getByText("Branch of").waitFor({ timeout: UI_MS });
    const inherited = page.getByRole("region", { name: "Inherited conversation" });
    await inherited.getByText("mock reply: first question").waitFor({ timeout: UI_MS });
    expect(await transcriptOf(page).getByText("second question").count()).toBe(0);
    // Listed indented under its parent, as a branch.
    await sessionsOf(page).getByRole("listitem").filter({ hasText: "(branch)" }).first().waitFor({ timeout: UI_MS });

    // It continues from the first turn alone: the model sees the first question, not the second.
    const before = f.model.requests.length;
    await send(page, "third question");
    await transcriptOf(page).getByText("mock reply: third question").waitFor({ timeout: UI_MS });
    const asked = JSON.stringify(f.model.requests.slice(before));
    expect(asked).toContain("first question");
    expect(asked).not.toContain("second question");
    await screenshot(page, "groups-3-branch");
    expect(await audit(page)).toEqual([]);
    await expectClean(w);
  }, 90_000);
});
