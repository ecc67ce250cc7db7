/**
 * Providers from the API over HTTP: `POST /workspace/auth/provider` (strict) stores a provider,
 * answering what it stored without the key; known ids take their default base URL; a custom one
 * needs its own; malformed fields are 400 with a code; the catalog and the status say what is
 * configured and from where (a key in the daemon's environment shows as `source: env`, no value,
 * no variable name); DELETE removes it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "providers-test-token";
const AUTH = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
const ENV_KEY = "sk-env-SECRET-4b1d";

const call = async (d: TestDaemon, method: string, path: string, body?: unknown) => {
  const res = await d.fetch(path, { method, headers: AUTH, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, any>) : null };
};

describe("providers from the API", () => {
  test("store, list, status and remove; the key never in an answer", async () => {
    await using home = tempDir("svc-auth-home-");
    await using d = await startDaemon([], { env: { SVC_HOME: home.path, SVC_SERVER_TOKEN: TOKEN, ANTHROPIC_API_KEY: ENV_KEY, ANTHROPIC_MODEL: "claude-x" } });
    const key = "sk-api-SECRET-9a7c";
    const stored = await call(d, "POST", "/workspace/auth/provider", { providerId: "openrouter", models: ["qwen/qwen3-coder"], apiKey: key });
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({ providerId: "openrouter", kind: "openai-compatible", baseUrl: "https://openrouter.ai/api/v1", models: ["qwen/qwen3-coder"], keyStored: true, runtimeSync: "not_running" });
    const local = await call(d, "POST", "/workspace/auth/provider", { providerId: "ollama", baseUrl: "http://127.0.0.1:11434/v1/", models: ["qwen3"], apiKey: "" });
    expect(local.body).toMatchObject({ providerId: "ollama", baseUrl: "http://127.0.0.1:11434/v1", keyStored: false });
    expect(JSON.parse(readFileSync(join(home.path, "credentials.json"), "utf8")).providers.map((p: { id: string }) => p.id)).toEqual(["ollama", "openrouter"]);

    const status = await call(d, "GET", "/workspace/auth/status");
    expect(status.body!.providers).toEqual([
      { providerId: "ollama", kind: "openai-compatible", source: "api", models: ["qwen3"], keyPresent: false },
      { providerId: "openrouter", kind: "openai-compatible", source: "api", models: ["qwen/qwen3-coder"], keyPresent: true },
      { providerId: "anthropic", kind: "anthropic", source: "env", models: ["claude-x"], keyPresent: true },
    ]);
    const catalog = await call(d, "GET", "/workspace/auth/providers");
    expect(catalog.body!.providers.filter((p: { configured: boolean }) => p.configured).map((p: { id: string }) => p.id)).toEqual(["openrouter", "anthropic"]);
    expect(catalog.body!.providers.map((p: { id: string }) => p.id)).toContain("custom");
    for (const answer of [stored.text, local.text, status.text, catalog.text]) {
      expect(answer).not.toContain("SECRET");
      expect(answer).not.toContain("ANTHROPIC_API_KEY");
    }

    expect((await call(d, "DELETE", "/workspace/auth/provider/openrouter")).status).toBe(204);
    expect((await call(d, "DELETE", "/workspace/auth/provider/openrouter")).body).toMatchObject({ code: "provider_not_found" });
    expect((await call(d, "GET", "/workspace/auth/status")).body!.providers.map((p: { providerId: string }) => p.providerId)).toEqual(["ollama", "anthropic"]);
    expect(d.logs.join("\n")).not.toContain("SECRET");
  });

  test.each([
    [{ providerId: "x", models: ["m"], apiKey: "k" }, 400, "invalid_base_url"],
    [{ providerId: "x", baseUrl: "ftp://h/v1", models: ["m"], apiKey: "k" }, 400, "invalid_base_url"],
    [{ providerId: "x", baseUrl: "http://user:pw@h/v1", models: ["m"], apiKey: "k" }, 400, "invalid_base_url"],
    [{ providerId: "openai", models: [], apiKey: "k" }, 400, "invalid_models"],
    [{ providerId: "openai", models: ["m"] }, 400, "invalid_request"],
    [{ providerId: "openai", models: ["m"], apiKey: "" }, 400, "invalid_request"],
    [{ providerId: "../x", models: ["m"], apiKey: "k" }, 400, "invalid_request"],
    [{ providerId: "anthropic", kind: "google", models: ["m"], apiKey: "k" }, 400, "unsupported_protocol"],
  ])("%j is %i %s, and nothing is stored", async (body, status, code) => {
    await using home = tempDir("svc-auth-home-");
    await using d = await startDaemon([], { env: { SVC_HOME: home.path, SVC_SERVER_TOKEN: TOKEN } });
    const reply = await call(d, "POST", "/workspace/auth/provider", body);
    expect([reply.status, reply.body!.code]).toEqual([status, code]);
    expect((await call(d, "GET", "/workspace/auth/status")).body!.providers).toEqual([]);
  });
});
