/**
 * A daemon restart under an open session (issue 22, "Checked by": after a daemon restart the UI
 * and the SDK continue the session). The web UI has the session open and an SDK subscriber in the
 * test follows it too; the daemon stops and starts again on the same port and data dir. Without a
 * click, both restore the session (their streams answer 404 `restorable`, so they load it): the UI
 * shows its history and streams the reply to a new prompt, and the SDK subscriber receives that
 * turn on its stream, in the new epoch.
 */
import { expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { COALESCE_INTERVAL_MS } from "../../src/builtin-agent/chunk-coalescer.ts";
import { createClient, type ConnectionState, type EventEnvelope, type LoadedSession } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { until } from "../helpers/until.ts";
import { browserDescribe, clearArtifacts, launchBrowser, openUi, screenshot, uiFixture, UI_MS, type WatchedPage } from "./harness.ts";

const transcriptOf = (page: Page) => page.getByRole("log", { name: "Transcript" }).or(page.getByRole("region", { name: "Transcript" }));
const connectionOf = async (page: Page) => (await page.getByRole("status", { name: "Connection" }).textContent())?.trim();

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Prompt" }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

/**
 * No CSP violation, and no console error but the failed loads a restart causes: requests refused
 * while the daemon is down, and the event stream's 404 that makes the UI restore the session.
 */
async function expectCleanAcrossRestart(watched: WatchedPage): Promise<void> {
  expect(await watched.cspViolations()).toEqual([]);
  const expected = (text: string) => text.startsWith("Failed to load resource") && (/net::ERR_/.test(text) || text.includes("status of 404"));
  expect(watched.consoleErrors.filter((text) => !expected(text))).toEqual([]);
  // The only 404s are the event stream's (the session was not live yet).
  expect(watched.failures.filter((f) => f.startsWith("404 ") && !/\/session\/[^/]+\/events$/.test(f))).toEqual([]);
}

browserDescribe("the web UI and the SDK across a daemon restart", () => {
  test("a session open in the UI and followed by an SDK subscriber continues after the daemon restarts on the same port", async () => {
    clearArtifacts("restart-");
    await using browser = await launchBrowser();
    await using f = uiFixture();
    const first = await f.start();
    let stopped = false;
    try {
      await using w = await openUi(await browser.context(), `${first.url}/`);
      await w.page.getByRole("button", { name: "New session" }).click();
      await w.page.getByRole("textbox", { name: "Prompt" }).waitFor({ timeout: UI_MS });
      const sessionId = decodeURIComponent(/#\/session\/([^/?]+)/.exec(w.page.url())![1]!);
      // A reply in many chunks (pieces further apart than the agent gathers deltas for): the first life's ids run well past those the restored session starts with.
      f.model.enqueue({ kind: "text", text: "mock reply: remember the word kumquat, noted in many small chunks", chunkChars: 2, chunkDelayMs: 3 * COALESCE_INTERVAL_MS });
      await send(w.page, "remember the word kumquat");
      const transcript = transcriptOf(w.page);
      await transcript.getByText("mock reply: remember the word kumquat, noted").waitFor({ timeout: UI_MS });

      const events: { event: EventEnvelope; source: string }[] = [];
      const resyncs: LoadedSession[] = [];
      const errors: unknown[] = [];
      const states: ConnectionState[] = [];
      const sdk = createClient({ baseUrl: first.url, fetch: contractFetch });
      const sub = sdk.subscribe(sessionId, {
        onEvent: (event, ctx) => void events.push({ event, source: ctx.source }),
        onResync: (loaded) => void resyncs.push(loaded),
        onError: (error) => void errors.push(error),
        onState: (state) => void states.push(state),
        backoffBaseMs: 50,
        backoffMaxMs: 500,
      });
      try {
        await until(() => sub.state === "live", UI_MS, "the SDK subscriber live");
        const before = await until(() => (sub.position.lastEventId > 20 ? sub.position : null), UI_MS, "the first turn on the SDK's stream");

        await first.stop();
        stopped = true;
        await until(async () => (await connectionOf(w.page)) !== "live", UI_MS, "the UI to see the daemon go");
        await screenshot(w.page, "restart-1-daemon-stopped");

        await using again = await f.start(["--port", String(first.port)]);
        expect(again.url).toBe(first.url);

        // The UI comes back by itself: live on the restored session, its history shown, the composer usable.
        await until(async () => ["live", "resynced"].includes((await connectionOf(w.page)) ?? ""), UI_MS, "the UI connected again");
        await transcript.getByText("remember the word kumquat").first().waitFor({ timeout: UI_MS });
        await transcript.getByText("mock reply: remember the word kumquat, noted").waitFor({ timeout: UI_MS });
        expect(await w.page.getByRole("button", { name: "Reopen" }).count()).toBe(0);
        await send(w.page, "and now a new question");
        await transcript.getByText("mock reply: and now a new question").waitFor({ timeout: UI_MS });
        await screenshot(w.page, "restart-2-continued");

        // The SDK subscriber restored it too (or found it restored) and streams the new turn.
        await until(() => sub.state === "resynced" || sub.state === "live", UI_MS, "the SDK subscriber back");
        expect(errors).toEqual([]);
        expect(resyncs.length).toBeGreaterThanOrEqual(1);
        expect(sub.position.epoch).not.toBe(before.epoch);
        const streamedText = () =>
          events
            .filter((e) => e.source === "stream" && e.event.type === "session_update" && e.event.data.update.sessionUpdate === "agent_message_chunk")
            .map((e) => e.event.data.update.content.text)
            .join("");
        await until(() => streamedText().includes("mock reply: and now a new question"), UI_MS, "the new turn on the SDK's stream");
        // The new epoch's ids start below the old ones: delivered all the same.
        const newTurn = events.filter((e) => e.source === "stream" && e.event.type === "turn_complete").at(-1)!.event;
        expect(newTurn.id!).toBeLessThan(before.lastEventId);
        await expectCleanAcrossRestart(w);
      } finally {
        sub.close();
      }
    } finally {
      if (!stopped) await first.stop();
      await first[Symbol.asyncDispose]();
    }
  }, 90_000);
});
