/**
 * The auth subsystem's pure parts and its file: which stored provider a third-party agent is pointed
 * at (`runtime/stored-endpoint.ts`), the device-provider table's checks (endpoints from config only,
 * http(s) without credentials), the key document carrying the API providers to the built-in agent,
 * the credentials file (0600, atomic, bounded, damaged → refused), and the refresh of a device-flow
 * token near its expiry before an agent start (against the loopback mock authorization server).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { storedProviders } from "../../../src/auth/index.ts";
import { CredentialsFileError, CredentialsStore, MAX_CREDENTIALS_BYTES, type StoredProvider } from "../../../src/auth/credentials-store.ts";
import { deviceFlowProviders, parseDeviceProvider } from "../../../src/auth/device-providers.ts";
import { decodeHandedKeys, encodeHandedKeys, type HandedProvider } from "../../../src/config/agent-keys.ts";
import { Logger } from "../../../src/logging/logger.ts";
import { storedEndpoint } from "../../../src/runtime/stored-endpoint.ts";
import { startMockOAuth } from "../../fixtures/mock-oauth.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const handed = (id: string, kind: HandedProvider["kind"], baseUrl: string): HandedProvider => ({ id, kind, baseUrl, models: [`${id}-model`], apiKey: `${id}-key` });
const logger = new Logger("error", "text", { write: () => {} });

describe("storedEndpoint", () => {
  const providers = [handed("new-oai", "openai-compatible", "https://a.example/v1"), handed("ant", "anthropic", "https://api.anthropic.com/v1"), handed("old-oai", "openai-compatible", "https://b.example/v1"), handed("goo", "google", "https://g.example/v1beta")];
  test("the most recent provider of the agent's dialect, its base URL in the agent's form", () => {
    expect(storedEndpoint("qwen-code", providers)).toEqual({ baseUrl: "https://a.example/v1", model: "new-oai-model", apiKey: "new-oai-key" });
    expect(storedEndpoint("claude", providers)).toEqual({ baseUrl: "https://api.anthropic.com", model: "ant-model", apiKey: "ant-key" });
    expect(storedEndpoint("gemini", providers)?.baseUrl).toBe("https://g.example");
  });
  test("none for codex, generic, the built-in agent, or no provider of the dialect", () => {
    for (const agent of ["codex", "generic", "builtin"] as const) expect(storedEndpoint(agent, providers)).toBeNull();
    expect(storedEndpoint("claude", [providers[0]!])).toBeNull();
  });
});

describe("the device-provider table", () => {
  const ok = { id: "idp", deviceAuthorizationEndpoint: "https://idp.example/device", tokenEndpoint: "https://idp.example/token", clientId: "c", model: { baseUrl: "https://m.example/v1/", models: ["m"] } };
  test("an entry needs http(s) endpoints without credentials, a client id and a model", () => {
    expect(parseDeviceProvider(ok)).toMatchObject({ id: "idp", pkce: false, scope: null, model: { kind: "openai-compatible", baseUrl: "https://m.example/v1" } });
    for (const bad of [
      { ...ok, tokenEndpoint: "file:///etc/passwd" },
      { ...ok, deviceAuthorizationEndpoint: "https://u:p@idp.example/device" },
      { ...ok, clientId: "" },
      { ...ok, model: { baseUrl: "https://m.example", models: [] } },
      { ...ok, id: "../x" },
    ])
      expect(typeof parseDeviceProvider(bad)).toBe("string");
  });
  test("built in: Qwen's; the settings add and replace by id, skipping what does not fit", async () => {
    await using home = tempDir("svc-auth-unit-");
    expect(deviceFlowProviders(home.path).providers.map((p) => p.id)).toEqual(["qwen-oauth"]);
    writeFileSync(join(home.path, "settings.json"), JSON.stringify({ auth: { deviceFlowProviders: [ok, { ...ok, id: "qwen-oauth", label: "mine" }, { id: "bad" }] } }));
    const { providers, warnings } = deviceFlowProviders(home.path);
    expect(providers.map((p) => [p.id, p.label])).toEqual([["qwen-oauth", "mine"], ["idp", "idp"]]);
    expect(warnings).toHaveLength(1);
  });
});

test("the key document carries the API providers beside the key variables", () => {
  const providers = [handed("p", "anthropic", "https://x.example")];
  expect(decodeHandedKeys(encodeHandedKeys({ OPENAI_API_KEY: "k" }, providers))).toEqual({ keys: { OPENAI_API_KEY: "k" }, providers });
  expect(() => decodeHandedKeys(new TextEncoder().encode(JSON.stringify({ "@providers": [{ id: "p" }] })))).toThrow();
});

describe("the credentials file", () => {
  const provider = (id: string, updatedAt: number): StoredProvider => ({ id, kind: "openai-compatible", baseUrl: "http://x", models: ["m"], apiKey: `${id}-key`, source: "api", updatedAt });
  test("0600, replaced atomically (no temporary file left), most recent first, an id replaced", async () => {
    await using home = tempDir("svc-auth-unit-");
    const store = new CredentialsStore(home.path);
    expect(store.read()).toEqual([]);
    store.put(provider("a", 1));
    store.put(provider("b", 2));
    store.put({ ...provider("a", 3), apiKey: "new" });
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(readdirSync(home.path)).toEqual(["credentials.json"]);
    expect(store.read().map((p) => [p.id, p.apiKey])).toEqual([["a", "new"], ["b", "b-key"]]);
    expect(store.remove("b")).toBe(true);
    expect(store.remove("b")).toBe(false);
  });
  test("a damaged or oversized file is refused, its content not quoted", async () => {
    await using home = tempDir("svc-auth-unit-");
    const store = new CredentialsStore(home.path);
    writeFileSync(store.file, '{"providers": [{"apiKey": "leak-me"}]}');
    expect(() => store.read()).toThrow(CredentialsFileError);
    try {
      store.read();
    } catch (err) {
      expect((err as Error).message).not.toContain("leak-me");
    }
    writeFileSync(store.file, " ".repeat(MAX_CREDENTIALS_BYTES + 1));
    expect(() => store.read()).toThrow("larger than");
  });
});

test("an agent start refreshes a device-flow token near its expiry, and stores the new one", async () => {
  await using oauth = startMockOAuth();
  await using home = tempDir("svc-auth-unit-");
  const idp = { id: "idp", deviceAuthorizationEndpoint: oauth.deviceEndpoint, tokenEndpoint: oauth.tokenEndpoint, clientId: "c", model: { baseUrl: "http://m.example/v1", models: ["m"] } };
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ auth: { deviceFlowProviders: [idp] } }));
  const store = new CredentialsStore(home.path);
  const base = { kind: "openai-compatible", baseUrl: "http://m.example/v1", models: ["m"], source: "device_flow", updatedAt: 1, refreshToken: oauth.refreshToken } as const;
  store.put({ ...base, id: "idp", apiKey: "old", expiresAt: Date.now() + 1000 });
  const [first] = await storedProviders({ dataDir: home.path, logger });
  expect(first!.apiKey).toBe("refreshed-1");
  expect(oauth.requests.at(-1)!.form).toEqual({ grant_type: "refresh_token", refresh_token: oauth.refreshToken, client_id: "c" });
  const saved = store.read()[0]!;
  expect([saved.apiKey, saved.refreshToken, saved.expiresAt! > Date.now() + 3_000_000]).toEqual(["refreshed-1", oauth.refreshToken, true]);
  // A token far from its expiry is handed as it is.
  const again = await storedProviders({ dataDir: home.path, logger });
  expect([again[0]!.apiKey, oauth.requests.length]).toEqual(["refreshed-1", 1]);
});
