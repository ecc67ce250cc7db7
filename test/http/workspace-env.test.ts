/**
 * `GET /workspace/env` over HTTP (spec "Environment"): with real-looking secrets and credentialed
 * proxies in the daemon's environment, the answer carries proxy hosts and secret presence only,
 * never a value, and never another variable.
 */
import { expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";

const TOKEN = "env-test-token-SECRET-7d1e";
const ENV = {
  OPENAI_API_KEY: "sk-proj-SECRET-openai-0123456789",
  ANTHROPIC_API_KEY: "sk-ant-api03-SECRET-anthropic",
  GEMINI_API_KEY: "AIzaSy-SECRET-gemini",
  DASHSCOPE_API_KEY: "sk-SECRET-dashscope",
  OPENROUTER_API_KEY: "sk-or-v1-SECRET-openrouter",
  SVC_SERVER_TOKEN: TOKEN,
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/SECRET",
  HTTP_PROXY: "http://proxyuser:pa55-SECRET@proxy.corp.example:3128/path?token=SECRET",
  HTTPS_PROXY: "https://user%40corp:p%40ss-SECRET@secure-proxy.example:8443",
  ALL_PROXY: "socks5://sockuser:SECRET@socks.example:1080",
  NO_PROXY: "localhost,10.0.0.0/8,http://u:SECRET@api.example:443",
};

test("proxies are host:port, secrets only present, nothing else, no value anywhere", async () => {
  await using d = await startDaemon([], { env: ENV });
  const res = await d.fetch("/workspace/env", { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).not.toContain("SECRET");
  const body = JSON.parse(text) as { initialized: boolean; acpChannelLive: boolean; cells: { kind: string; name: string; value?: string; present?: boolean }[] };
  expect([body.initialized, body.acpChannelLive]).toEqual([false, false]);
  expect(body.cells.filter((c) => c.kind === "proxy").map((c) => [c.name, c.value])).toEqual([
    ["HTTP_PROXY", "proxy.corp.example:3128"],
    ["HTTPS_PROXY", "secure-proxy.example:8443"],
    ["NO_PROXY", "localhost,10.0.0.0/8,api.example:443"],
    ["ALL_PROXY", "socks.example:1080"],
  ]);
  const secrets = body.cells.filter((c) => c.kind === "env_var");
  expect(secrets.every((c) => !("value" in c))).toBe(true);
  expect(Object.fromEntries(secrets.map((c) => [c.name, c.present]))).toEqual({
    OPENAI_API_KEY: true,
    ANTHROPIC_API_KEY: true,
    GEMINI_API_KEY: true,
    GOOGLE_API_KEY: false,
    DASHSCOPE_API_KEY: true,
    OPENROUTER_API_KEY: true,
    SVC_SERVER_TOKEN: true,
  });
  expect(new Set(body.cells.map((c) => c.kind))).toEqual(new Set(["runtime", "platform", "sandbox", "proxy", "env_var"]));
});
