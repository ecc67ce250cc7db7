/**
 * The side-question box in chromium: asked while a turn streams, its answer shows in the "Side
 * answer" region and never in the transcript, and the turn streams on to its end.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestDaemon } from "../helpers/daemon.ts";
import { until } from "../helpers/until.ts";
import { browserDescribe, clearArtifacts, expectClean, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type Browser, type UiFixture } from "./harness.ts";

browserDescribe("the side-question box", () => {
  let browser: Browser;
  let f: UiFixture;
  let d: TestDaemon;
  beforeAll(async () => {
    clearArtifacts("side-");
    browser = await launchBrowser();
    f = uiFixture();
    d = await f.start();
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
    await f?.[Symbol.asyncDispose]();
    await browser?.[Symbol.asyncDispose]();
  });

  test("a side question asked during a turn is answered beside the transcript", async () => {
    await using w = await openUi(await browser.context(), `${d.url}/`);
    await w.page.getByRole("button", { name: "New session" }).click();
    await w.page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: UI_MS });
    const reply = Array.from({ length: 30 }, (_, i) => `part${i}`).join(" ");
    f.model.enqueue({ kind: "text", text: reply, chunkChars: 6, chunkDelayMs: 100 });
    await w.page.getByRole("textbox", { name: "Prompt" }).fill("Refactor the parser");
    await w.page.getByRole("button", { name: "Send", exact: true }).click();
    await until(() => f.model.requests.length === 1, UI_MS, "the turn's model request");

    f.model.enqueue({ kind: "text", text: "You asked for a parser refactor." });
    const form = w.page.getByRole("form", { name: "Side question" });
    await form.getByRole("textbox", { name: "Side question" }).fill("What did I ask?");
    await form.getByRole("button", { name: "Ask" }).click();
    const answer = w.page.getByRole("region", { name: "Side answer" });
    await answer.getByText("You asked for a parser refactor.").waitFor({ timeout: UI_MS });
    const transcript = w.page.getByRole("log", { name: "Transcript" }).or(w.page.getByRole("region", { name: "Transcript" }));
    expect(await transcript.textContent()).not.toContain("part29");
    await screenshot(w.page, "side-1-answer");

    await until(async () => ((await transcript.textContent()) ?? "").includes("part29"), UI_MS, "the turn's whole reply");
    const text = (await transcript.textContent()) ?? "";
    expect(text).not.toContain("You asked for a parser refactor.");
    expect(text).not.toContain("What did I ask?");
    await answer.getByRole("button", { name: "Dismiss" }).click();
    await answer.waitFor({ state: "detached", timeout: UI_MS });
    await expectClean(w);
  });
});
