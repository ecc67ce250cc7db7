/**
 * The front door's webhook gate and the router agree on what the webhook route's path is: a path
 * the gate lets past the bearer reaches the webhook handler, and a path the router hands that
 * handler is one the gate judged. The handler checks the secret again, so an app reached without
 * the door admits nothing either.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readChannelSettings } from "../../../src/config/channel-settings.ts";
import type { Logger } from "../../../src/logging/logger.ts";
import { createApp, type BuiltApp } from "../../../src/server/app.ts";
import { pathOf } from "../../../src/server/front-door.ts";
import type { RuntimeRegistry } from "../../../src/sessions/runtime-registry.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";

let dir: TempDir;
let built: BuiltApp;
let runtimes: RuntimeRegistry;
const channels = readChannelSettings("settings.json", { channels: { ci: { webhooks: { sources: { gh: { secret: "s", targets: { main: { sessionId: "x" } } } } } } } }, {});

beforeAll(() => {
  dir = tempDir("q-agree-");
  const { config, logger } = testServerConfig(dir.path, []);
  const deps = testAppDeps({ ...config, settings: { ...config.settings, channels } }, logger as Logger);
  runtimes = deps.runtimes;
  built = createApp(deps);
});

afterAll(async () => {
  await runtimes.stop();
  await dir[Symbol.asyncDispose]();
});

const SPELLINGS = [
  "/channels/ci/webhooks/gh",
  "/channels/ci/webhooks/gh/",
  "/channels/ci/webhooks/gh?x=1",
  "/channels//webhooks/gh",
  "/channels/ci/webhooks/",
  "/channels/ci%2Fx/webhooks/gh",
  "/channels/c%69/webhooks/gh",
  "/channels/ci/webhooks/gh%2F",
  "/channels/ci/webhooks/gh/x",
  "/Channels/ci/webhooks/gh",
  "/channels/ci/Webhooks/gh",
  "/channels/ci;x/webhooks/gh",
  "/x/channels/ci/webhooks/gh",
  "/channels/ci/webhooks/%20",
];

test.each(SPELLINGS)("%s: the gate judges it exactly when the router hands it to the webhook handler", async (spelling) => {
  const url = `http://127.0.0.1:4170${spelling}`;
  const headers = new Headers({ "x-svc-webhook-secret": "wrong" });
  const gated = built.webhookGate("POST", pathOf(url), headers, () => "loopback") !== null;
  const res = await built.fetch(new Request(url, { method: "POST", headers, body: JSON.stringify({ eventType: "e", targetRef: "main", title: "t" }) }));
  const handled = res.status === 401 && (await res.json()).error === "Invalid webhook secret";
  expect(handled).toBe(gated);
});

test("the handler checks the secret itself: a wrong one reaching the app is 401", async () => {
  const res = await built.fetch(new Request("http://127.0.0.1:4170/channels/ci/webhooks/gh", { method: "POST", headers: { "x-svc-webhook-secret": "wrong" }, body: JSON.stringify({ eventType: "e", targetRef: "main", title: "t" }) }));
  expect(res.status).toBe(401);
});
