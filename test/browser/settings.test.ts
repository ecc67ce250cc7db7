/**
 * The settings area in chromium, against a daemon with a token: memory viewed and edited (the
 * project file changes on disk, a change made on disk meanwhile is a conflict the save stops at,
 * the user file is added to), the language set (saved in the data dir), the skills section's
 * answer, and the MCP status listing a server of the host settings with the client budget.
 * The workspace is trusted (its project file is listed and written only then). Every section
 * passes the accessibility audit.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page, Route } from "playwright-core";
import type { TestDaemon } from "../helpers/daemon.ts";
import { until } from "../helpers/until.ts";
import { audit } from "./a11y.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture } from "./harness.ts";

const TOKEN = "settings-Br0wser.token";
const SERVER = "docs-server";
/** A hook name with a right-to-left override: shown with the override marked, never applied. */
const TRICKY = "notes\u202Egnp.exe";

async function step(page: Page, name: string): Promise<void> {
  await screenshot(page, `settings-${name}`);
  expect({ step: name, violations: await audit(page) }).toEqual({ step: name, violations: [] });
}

/** Opens the settings from the header, then the section named `title`. */
async function openSection(page: Page, title: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Settings" }).click();
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("button", { name: title }).click();
  await page.getByRole("heading", { level: 2, name: title }).waitFor({ timeout: UI_MS });
}

const text = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");

browserDescribe("the settings area", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon;
  beforeAll(async () => {
    clearArtifacts("settings-");
    browser = await launchBrowser();
    f = uiFixture({ hostSettings: { mcpServers: { [SERVER]: { command: "/bin/false", env: { DOCS_TOKEN: "s3cret-value" } } }, hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "true", name: TRICKY }] }] } } });
    d = await f.start(["--token", TOKEN, "--trust-workspace"]);
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("memory: a file is listed and shown, the project file is edited on disk, a change on disk meanwhile is a conflict, the user file is added to", async () => {
    const project = join(f.ws.path, "AGENTS.md");
    const user = join(f.home.path, "AGENTS.md");
    writeFileSync(project, "# Rules\nOld rule\n");
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    const page = w.page;
    await openSection(page, "Memory");
    const files = page.getByRole("list", { name: "Memory files" });
    await files.locator(".settings-name").getByText(project, { exact: true }).waitFor({ timeout: UI_MS });
    await files.getByRole("button", { name: `View ${project}` }).click();
    await page.getByRole("region", { name: "Memory file" }).getByText("Old rule").waitFor({ timeout: UI_MS });
    await step(page, "1-memory");

    await page.getByRole("button", { name: "Edit project memory" }).click();
    const editor = page.getByRole("textbox", { name: "Project memory (AGENTS.md)" });
    expect(await editor.inputValue()).toBe("# Rules\nOld rule\n");
    await editor.fill("# Rules\nNew rule\n");
    await page.getByRole("button", { name: "Save project memory" }).click();
    await page.getByRole("status").getByText(/^Saved /).waitFor({ timeout: UI_MS });
    await until(() => text(project) === "# Rules\nNew rule\n", UI_MS, "the project file rewritten");
    // The file as saved from here is what the next save compares against: no conflict with itself.
    await editor.fill("# Rules\nNewer rule\n");
    await page.getByRole("button", { name: "Save project memory" }).click();
    await until(() => text(project) === "# Rules\nNewer rule\n", UI_MS, "the project file saved again");
    await page.getByRole("status").getByText(/^Saved /).waitFor({ timeout: UI_MS });

    // Changed on disk after the editor read it: the save stops and says so; overwriting then writes.
    writeFileSync(project, "# Rules\nSomeone else's rule\n");
    await editor.fill("# Rules\nMine\n");
    await page.getByRole("button", { name: "Save project memory" }).click();
    await page.getByRole("alert").getByText("AGENTS.md changed on disk since you opened it").waitFor({ timeout: UI_MS });
    expect(text(project)).toBe("# Rules\nSomeone else's rule\n");
    await step(page, "2-memory-conflict");
    await page.getByRole("button", { name: "Overwrite" }).click();
    await until(() => text(project) === "# Rules\nMine\n", UI_MS, "the project file overwritten");

    await page.getByRole("textbox", { name: "Add to user memory" }).fill("Prefer small commits.");
    await page.getByRole("button", { name: "Add to user memory" }).click();
    await until(() => text(user).includes("Prefer small commits."), UI_MS, "the user file written");
    await files.locator(".settings-name").getByText(user, { exact: true }).waitFor({ timeout: UI_MS });
    await expectClean(w);
  });

  test("language: set for every agent, saved in the data dir", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    await openSection(w.page, "Language");
    const form = w.page.getByRole("form", { name: "Language" });
    await form.getByRole("combobox", { name: "Language" }).selectOption("fr");
    await form.getByRole("button", { name: "Set language" }).click();
    await w.page.getByRole("status").getByText("Language set to fr, replies in French").waitFor({ timeout: UI_MS });
    await until(() => text(join(f.home.path, "language.json")).includes('"fr"'), UI_MS, "language.json");
    await w.page.getByText("Last set from this browser: fr.").waitFor({ timeout: UI_MS });
    await step(w.page, "3-language");
    await expectClean(w);
  });

  test("skills, MCP servers, hooks and a session's language: with a live agent, the skills answer, the configured server shows with the client budget and a failed restart is said, a hook's name has its override marked, the session's hooks show, its language is set", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    const page = w.page;
    await page.getByRole("button", { name: "New session" }).click();
    await page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: UI_MS });

    await openSection(page, "Skills");
    await page.getByRole("list", { name: "Skills" }).or(page.getByText(/^(No skills reported\.|Skills: not supported by this agent\.)$/)).waitFor({ timeout: UI_MS });
    await step(page, "4-skills");

    await openSection(page, "MCP servers");
    const servers = page.getByRole("list", { name: "MCP servers" });
    await servers.locator(".settings-name").getByText(SERVER, { exact: true }).waitFor({ timeout: UI_MS });
    await page.getByRole("group", { name: "Client budget" }).or(page.getByText("The agent reports no client budget.")).waitFor({ timeout: UI_MS });
    expect(await page.locator("main").textContent()).not.toContain("s3cret-value");
    // The server's command fails: the agent's refusal (502) is said, not swallowed.
    await servers.getByRole("button", { name: `Restart ${SERVER}` }).click();
    await page.getByRole("alert").getByText(`MCP server "${SERVER}" failed to restart`).waitFor({ timeout: UI_MS });
    await step(page, "5-mcp");

    await openSection(page, "Hooks");
    const hooks = page.getByRole("list", { name: "Workspace hooks" });
    await hooks.locator(".settings-name").getByText("SessionEnd — notes⟨U+202E⟩gnp.exe", { exact: true }).waitFor({ timeout: UI_MS });
    expect(await page.locator("main").textContent()).not.toContain("\u202E");
    const sessionHooks = page.locator(".settings-block").filter({ has: page.getByRole("heading", { name: "Session hooks" }) });
    await sessionHooks.getByRole("combobox", { name: "Session" }).waitFor({ timeout: UI_MS });
    await sessionHooks.getByText("No hooks.").waitFor({ timeout: UI_MS });
    await step(page, "6-hooks");

    await openSection(page, "Language");
    const form = page.getByRole("form", { name: "Language" });
    await form.getByRole("combobox", { name: "Language" }).selectOption("ja");
    await form.getByRole("combobox", { name: "Apply to" }).selectOption({ index: 1 });
    await form.getByRole("button", { name: "Set language" }).click();
    await page.getByRole("status").getByText(/^The session's language is ja, replies in Japanese/).waitFor({ timeout: UI_MS });
    await expectClean(w, { allowStatuses: [502] });
  });

  test("agents and extensions from the daemon, reached by keyboard: the built-in general-purpose agent, no extension installed", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/#token=${TOKEN}`);
    const page = w.page;
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Settings" }).focus();
    await page.keyboard.press("Enter");
    const sections = page.getByRole("navigation", { name: "Settings sections" });
    await sections.getByRole("button", { name: "Agents" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("list", { name: "Agents" }).locator(".settings-name").getByText("general-purpose", { exact: true }).waitFor({ timeout: UI_MS });
    expect(await sections.getByRole("button", { name: "Agents" }).getAttribute("aria-current")).toBe("page");
    await sections.getByRole("button", { name: "Extensions" }).click();
    await page.getByText("No extensions installed.").waitFor({ timeout: UI_MS });
    await step(page, "7-daemon-agents");
    await expectClean(w);
  });

  test("agents, extensions and MCP server settings in the reference's shapes (routes stubbed): listed with hidden characters marked, secrets never shown back", async () => {
    const context = await browser.context();
    const put: unknown[] = [];
    await stubReferenceRoutes(context, put);
    await using w = await openUi(context, `${d.url}/#token=${TOKEN}`);
    const page = w.page;

    await openSection(page, "Agents");
    const agents = page.getByRole("list", { name: "Agents" });
    await agents.locator(".settings-name").getByText("reviewer", { exact: true }).waitFor({ timeout: UI_MS });
    await agents.getByText("Reviews ⟨U+202E⟩code").waitFor({ timeout: UI_MS });
    await agents.getByRole("button", { name: "View reviewer" }).click();
    await page.getByRole("region", { name: "Agent definition" }).getByText("You review diffs.").waitFor({ timeout: UI_MS });
    await page.getByRole("textbox", { name: "Describe the agent to draft" }).fill("a test writer");
    await page.getByRole("button", { name: "Draft agent" }).click();
    await page.getByRole("region", { name: "Drafted agent" }).getByText("You write tests.").waitFor({ timeout: UI_MS });
    await step(page, "8-agents");

    await openSection(page, "Extensions");
    const extensions = page.getByRole("list", { name: "Extensions" });
    await extensions.getByText("1.0.0 · inactive · local").waitFor({ timeout: UI_MS });
    await extensions.getByRole("button", { name: "Activate Docs kit" }).click();
    await page.getByRole("status").getByText("Docs kit activated: operation op-1 queued.").waitFor({ timeout: UI_MS });
    await step(page, "9-extensions");

    await openSection(page, "MCP servers");
    const settings = page.getByRole("list", { name: "MCP server settings" });
    await settings.getByRole("button", { name: "Edit remote-docs" }).click();
    const form = page.getByRole("form", { name: "Edit MCP server" });
    const stored = form.getByRole("textbox", { name: "Value of secret 1" }).or(form.getByLabel("Value of secret 1"));
    expect(await stored.inputValue()).toBe("");
    expect(await stored.getAttribute("type")).toBe("password");
    expect(await page.locator("main").innerHTML()).not.toContain("__redacted__");
    await form.getByRole("button", { name: "Add a secret" }).click();
    await form.getByLabel("Name of secret 2").fill("X_API_KEY");
    await form.getByLabel("Value of secret 2").fill("new-secret");
    await step(page, "10-mcp-edit");
    await form.getByRole("button", { name: "Save server" }).click();
    await page.getByRole("status").getByText("remote-docs saved (reconciling).").waitFor({ timeout: UI_MS });
    expect(put).toEqual([{ scope: "user", config: { httpUrl: "https://docs.example/mcp", env: { X_API_KEY: "new-secret" }, headers: { Authorization: "__redacted__" } } }]);
    await expectClean(w);
  });
});

/** Answers the routes other parts of issue 26 add, as the reference daemon shapes them, and advertises their tags. */
async function stubReferenceRoutes(context: BrowserContext, put: unknown[]): Promise<void> {
  const json = (route: Route, body: unknown, status = 200) => route.fulfill({ status, json: body });
  await context.route(/\/capabilities$/, async (route) => {
    const caps = await (await route.fetch()).json();
    await json(route, { ...caps, features: [...caps.features, "workspace_agents", "workspace_agent_generate", "workspace_extensions", "workspace_mcp_manage"] });
  });
  const reviewer = { kind: "agent", name: "reviewer", description: "Reviews \u202Ecode", level: "project", isBuiltin: false, hasTools: false };
  await context.route(/\/workspace\/agents$/, (route) => json(route, { v: 1, workspaceCwd: "/w", agents: [reviewer] }));
  await context.route(/\/workspace\/agents\/reviewer$/, (route) => json(route, { ...reviewer, systemPrompt: "You review diffs." }));
  await context.route(/\/workspace\/agents\/generate$/, (route) => json(route, { name: "test-writer", description: "Writes tests", systemPrompt: "You write tests." }));
  const ext = { kind: "extension", id: "a".repeat(64), name: "docs-kit", displayName: "Docs kit", version: "1.0.0", isActive: false, installType: "local" };
  await context.route(/\/workspace\/extensions$/, (route) => json(route, { v: 1, workspaceCwd: "/w", initialized: true, extensions: [ext] }));
  await context.route(/\/workspace\/extensions\/docs-kit\/enable$/, (route) => json(route, { operationId: "op-1", status: "queued" }, 202));
  const remote = { httpUrl: "https://docs.example/mcp", headers: { Authorization: "__redacted__" } };
  await context.route(/\/workspace\/config\/mcp\/servers$/, (route) => json(route, { v: 1, effective: { "remote-docs": remote }, user: { "remote-docs": remote }, workspace: {} }));
  await context.route(/\/workspace\/config\/mcp\/servers\/remote-docs$/, (route) => {
    put.push(route.request().postDataJSON());
    return json(route, { name: "remote-docs", scope: "user", config: remote, activation: "reconciling" });
  });
}
