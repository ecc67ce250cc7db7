/**
 * Device-flow sign-in over HTTP (RFC 8628) against a loopback mock authorization server
 * (`test/fixtures/mock-oauth.ts`) configured in the host settings: approve (the token is stored as a
 * provider, 0600, and shown in the status without itself), deny, expiry (the server's
 * `expired_token` and the flow's own `expires_in`), `slow_down` (the interval grows by 5 s and the
 * next poll waits for it), cancel, one flow per provider (a second start attaches), the user code
 * only for the initiator, and never in `/daemon/status` or a log line.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockOAuth, USER_CODE, type MockOAuth } from "../fixtures/mock-oauth.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "device-flow-test-token";
const AUTH = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };

async function withDaemon(run: (d: TestDaemon, oauth: MockOAuth, home: string) => Promise<void>): Promise<void> {
  await using oauth = startMockOAuth();
  await using home = tempDir("svc-auth-home-");
  const provider = { id: "mock-idp", label: "Mock IdP", deviceAuthorizationEndpoint: oauth.deviceEndpoint, tokenEndpoint: oauth.tokenEndpoint, clientId: "svc-test", scope: "models", pkce: true, model: { baseUrl: "http://127.0.0.1:9/v1", models: ["m1"] } };
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ auth: { deviceFlowProviders: [provider] } }));
  await using d = await startDaemon([], { env: { SVC_HOME: home.path, SVC_SERVER_TOKEN: TOKEN } });
  await run(d, oauth, home.path);
  // Neither the user code nor the verification address reached a log line or the status snapshot.
  const full = await (await d.fetch("/daemon/status?detail=full", { headers: AUTH })).text();
  for (const text of [d.logs.join("\n"), full]) {
    expect(text).not.toContain(USER_CODE);
    expect(text).not.toContain("/activate");
    expect(text).not.toContain(oauth.accessToken);
  }
}

const start = (d: TestDaemon, headers: Record<string, string> = {}) => d.fetch("/workspace/auth/device-flow", { method: "POST", headers: { ...AUTH, ...headers }, body: JSON.stringify({ providerId: "mock-idp" }) });
const state = async (d: TestDaemon, id: string) => (await (await d.fetch(`/workspace/auth/device-flow/${id}`, { headers: AUTH })).json()) as Record<string, any>;
const settled = (d: TestDaemon, id: string, ms = 10_000) => until(async () => ((await state(d, id)).status !== "pending" ? state(d, id) : null), ms, "the flow to end");

describe("device-flow sign-in", () => {
  test("approve: user code and address for the initiator, the token stored 0600 as a provider, status without secrets", async () => {
    await withDaemon(async (d, oauth, home) => {
      const res = await start(d);
      expect(res.status).toBe(201);
      const started = (await res.json()) as Record<string, any>;
      expect(started).toMatchObject({ providerId: "mock-idp", status: "pending", attached: false, userCode: USER_CODE, verificationUri: `${oauth.url}/activate`, intervalMs: 1000 });
      // PKCE: a challenge with the code request, its verifier with each poll.
      expect(oauth.requests[0]!.form).toMatchObject({ client_id: "svc-test", scope: "models", code_challenge_method: "S256" });
      // A second start attaches to the pending flow; another client does not see the codes.
      const again = await start(d, { "X-Svc-Client-Id": "client-00000000-0000-4000-8000-000000000000" });
      expect(again.status).toBe(200);
      const attached = (await again.json()) as Record<string, any>;
      expect(attached).toMatchObject({ deviceFlowId: started.deviceFlowId, attached: true });
      expect(attached.userCode).toBeUndefined();
      expect(oauth.requests.filter((r) => r.path === "/device/code")).toHaveLength(1);
      const status = (await (await d.fetch("/workspace/auth/status", { headers: AUTH })).json()) as Record<string, any>;
      expect(status.pendingDeviceFlows).toEqual([{ deviceFlowId: started.deviceFlowId, providerId: "mock-idp", expiresAt: started.expiresAt }]);
      expect(status.supportedDeviceFlowProviders).toContain("mock-idp");

      await until(() => oauth.polls() >= 1, 5000, "a first poll");
      expect(oauth.requests.find((r) => r.path === "/token")!.form).toMatchObject({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: "device-1" });
      // RFC 7636: the verifier is 32 random bytes in base64url, the challenge its SHA-256 in base64url.
      const verifier = oauth.requests.find((r) => r.path === "/token")!.form.code_verifier!;
      expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(oauth.requests[0]!.form.code_challenge).toBe(createHash("sha256").update(verifier).digest("base64url"));
      oauth.decide("approve");
      const done = await settled(d, started.deviceFlowId);
      expect(done.status).toBe("authorized");
      expect(done.userCode).toBeUndefined();

      const file = join(home, "credentials.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(readFileSync(file, "utf8")).providers[0];
      expect(stored).toMatchObject({ id: "mock-idp", source: "device_flow", apiKey: oauth.accessToken, refreshToken: oauth.refreshToken, models: ["m1"] });
      const after = await (await d.fetch("/workspace/auth/status", { headers: AUTH })).text();
      expect(after).not.toContain(oauth.accessToken);
      expect(after).not.toContain(oauth.refreshToken);
      expect(JSON.parse(after).providers[0]).toMatchObject({ providerId: "mock-idp", source: "device_flow", keyPresent: true, refreshable: true });
      expect(JSON.parse(after).pendingDeviceFlows).toEqual([]);
    });
  }, 30_000);

  test("deny: the flow ends denied (access_denied) and nothing is stored", async () => {
    await withDaemon(async (d, oauth, home) => {
      oauth.decide("deny");
      const started = (await (await start(d)).json()) as Record<string, any>;
      expect(await settled(d, started.deviceFlowId)).toMatchObject({ status: "denied", errorKind: "access_denied" });
      expect(() => statSync(join(home, "credentials.json"))).toThrow();
    });
  }, 30_000);

  test("expiry: the server's expired_token, and the flow's own expires_in with the user never deciding", async () => {
    await withDaemon(async (d, oauth) => {
      oauth.decide("expire");
      const first = (await (await start(d)).json()) as Record<string, any>;
      expect(await settled(d, first.deviceFlowId)).toMatchObject({ status: "expired", errorKind: "expired_token" });
      oauth.decide("pending");
      oauth.expiresIn = 2;
      const second = (await (await start(d)).json()) as Record<string, any>;
      expect(second.expiresAt - second.createdAt).toBe(2000);
      const ended = await settled(d, second.deviceFlowId);
      expect(ended).toMatchObject({ status: "expired", errorKind: "expired_token" });
      expect(Date.now()).toBeGreaterThanOrEqual(second.expiresAt);
    });
  }, 30_000);

  test("slow_down adds 5 s to the interval, and the next poll waits for it", async () => {
    await withDaemon(async (d, oauth) => {
      oauth.slowDown(1);
      const started = (await (await start(d)).json()) as Record<string, any>;
      await until(async () => (await state(d, started.deviceFlowId)).intervalMs === 6000, 5000, "the longer interval");
      oauth.decide("approve");
      expect((await settled(d, started.deviceFlowId, 12_000)).status).toBe("authorized");
      const polls = oauth.requests.filter((r) => r.path === "/token");
      expect(polls).toHaveLength(2);
      expect(polls[1]!.at - polls[0]!.at).toBeGreaterThanOrEqual(5900);
    });
  }, 30_000);

  test("a poll without a usable answer (HTTP 503) is retried with the wait doubled; a definitive refusal ends the flow at once", async () => {
    await withDaemon(async (d, oauth) => {
      oauth.failNext(2);
      const started = (await (await start(d)).json()) as Record<string, any>;
      await until(() => oauth.polls() >= 2 || null, 8000, "two failed polls");
      expect((await state(d, started.deviceFlowId)).status).toBe("pending");
      oauth.decide("approve");
      expect((await settled(d, started.deviceFlowId, 15_000)).status).toBe("authorized");
      const polls = oauth.requests.filter((r) => r.path === "/token");
      expect(polls).toHaveLength(3);
      expect(polls[1]!.at - polls[0]!.at).toBeGreaterThanOrEqual(1900);
      expect(polls[2]!.at - polls[1]!.at).toBeGreaterThanOrEqual(3900);
    });
    await withDaemon(async (d, oauth) => {
      oauth.failNext(1, 400);
      const started = (await (await start(d)).json()) as Record<string, any>;
      const ended = await settled(d, started.deviceFlowId);
      expect([ended.status, ended.errorKind, oauth.polls()]).toEqual(["error", "upstream_error", 1]);
    });
  }, 40_000);

  test("cancel: DELETE ends the flow, polling stops; unknown ids 404; the routes are strict", async () => {
    await withDaemon(async (d, oauth) => {
      const started = (await (await start(d)).json()) as Record<string, any>;
      await until(() => oauth.polls() >= 1, 5000, "a first poll");
      const del = await d.fetch(`/workspace/auth/device-flow/${started.deviceFlowId}`, { method: "DELETE", headers: AUTH });
      expect(del.status).toBe(204);
      expect((await state(d, started.deviceFlowId)).status).toBe("cancelled");
      const cancelledAt = Date.now();
      // A new flow may start (none is pending); once it has polled twice, the cancelled one has had two intervals to poll in.
      const next = (await (await start(d)).json()) as Record<string, any>;
      expect(next.deviceFlowId).not.toBe(started.deviceFlowId);
      await until(() => oauth.requests.filter((r) => r.form.device_code === "device-2").length >= 2, 5000, "two polls of the new flow");
      expect(oauth.requests.filter((r) => r.form.device_code === "device-1" && r.at > cancelledAt)).toEqual([]);
      expect((await d.fetch("/workspace/auth/device-flow/nope", { headers: AUTH })).status).toBe(404);
      const unknown = await d.fetch("/workspace/auth/device-flow", { method: "POST", headers: AUTH, body: JSON.stringify({ providerId: "other" }) });
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as Record<string, unknown>).code).toBe("unsupported_provider");
      expect((await d.fetch("/workspace/auth/device-flow", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })).status).toBe(401);
    });
  }, 30_000);

  test("concurrent starts while the device code is on its way: one flow, the others attach to it", async () => {
    await withDaemon(async (d, oauth) => {
      oauth.codeDelayMs = 400;
      const replies = await Promise.all(Array.from({ length: 8 }, () => start(d)));
      const bodies = (await Promise.all(replies.map((r) => r.json()))) as Record<string, any>[];
      expect(replies.map((r) => r.status).filter((s) => s >= 300)).toEqual([]);
      expect(new Set(bodies.map((b) => b.deviceFlowId)).size).toBe(1);
      expect(bodies.filter((b) => b.attached === false)).toHaveLength(1);
      expect(oauth.requests.filter((r) => r.path === "/device/code")).toHaveLength(1);
      const status = (await (await d.fetch("/workspace/auth/status", { headers: AUTH })).json()) as Record<string, any>;
      expect(JSON.stringify(status).split(bodies[0]!.deviceFlowId).length - 1).toBe(1);
    });
  }, 30_000);
});
