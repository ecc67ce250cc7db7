/**
 * The client SDK's auth calls against a real daemon and the loopback mock authorization server:
 * set, list and remove a provider; start a sign-in as a named client (only it reads the user code),
 * follow it to `authorized`, cancel another. Every response goes through the contract check.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { startMockOAuth, USER_CODE } from "../fixtures/mock-oauth.ts";
import { contractFetch } from "../helpers/contract.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "client-auth-token";

test("providers and device flows through the SDK", async () => {
  await using oauth = startMockOAuth();
  await using home = tempDir("svc-auth-home-");
  const idp = { id: "idp", deviceAuthorizationEndpoint: oauth.deviceEndpoint, tokenEndpoint: oauth.tokenEndpoint, clientId: "c", model: { baseUrl: "http://127.0.0.1:9/v1", models: ["m"] } };
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ auth: { deviceFlowProviders: [idp] } }));
  await using d = await startDaemon([], { env: { SVC_HOME: home.path, SVC_SERVER_TOKEN: TOKEN } });
  const me = createClient({ baseUrl: d.url, token: TOKEN, clientId: "ui-1", fetch: contractFetch });
  const other = createClient({ baseUrl: d.url, token: TOKEN, fetch: contractFetch });

  expect(await me.setProvider({ providerId: "work", kind: "anthropic", baseUrl: "https://llm.example/v1", models: ["a"], apiKey: "sk-SECRET" })).toMatchObject({ providerId: "work", keyStored: true });
  expect((await me.authStatus()).providers.map((p) => [p.providerId, p.source])).toEqual([["work", "api"]]);
  expect((await me.authProviders()).deviceFlowProviders.map((p) => p.id)).toContain("idp");

  const flow = await me.startDeviceFlow("idp");
  expect(flow).toMatchObject({ status: "pending", userCode: USER_CODE, attached: false });
  expect((await other.deviceFlow(flow.deviceFlowId)).userCode).toBeUndefined();
  expect((await me.deviceFlow(flow.deviceFlowId)).userCode).toBe(USER_CODE);
  oauth.decide("approve");
  await until(async () => (await me.deviceFlow(flow.deviceFlowId)).status === "authorized", 10_000, "the sign-in");
  expect((await me.authStatus()).providers.map((p) => p.providerId)).toEqual(["idp", "work"]);

  oauth.decide("pending");
  const second = await me.startDeviceFlow("idp");
  await me.cancelDeviceFlow(second.deviceFlowId);
  expect((await me.deviceFlow(second.deviceFlowId)).status).toBe("cancelled");

  await me.removeProvider("work");
  const gone = await me.removeProvider("work").catch((e: unknown) => e);
  expect(gone).toBeInstanceOf(DaemonApiError);
  expect((gone as DaemonApiError).code).toBe("provider_not_found");
}, 30_000);
