/**
 * The status sanitizer on its own (the HTTP tests also see the route schemas drop undeclared
 * members; this checks the sanitizer does not lean on that): every secret kind planted in an
 * agent's answers is gone from what each redactor returns, and the allowed members stay.
 */
import { expect, test } from "bun:test";
import { redactMcp, redactPreflight, redactProviders, redactSessionView, redactSkills, redactTools } from "../../../src/workspace/status-redact.ts";

const S = "PLANTED-secret-value";
const SECRETS = [S];

const mcp = {
  servers: [{ kind: "mcp_server", status: "ok", name: "gh", transport: "stdio", config: { command: "npx", args: [`--token=${S}`], url: `https://x/${S}` }, env: { T: S }, headers: { A: S }, oauth: { clientSecret: S }, targetServiceAccount: S, description: `uses ${S}` }],
  budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", budget: 2, headers: { A: S } }],
};
const skills = { skills: [{ kind: "skill", status: "ok", name: "s", description: "d", installedPath: `/home/u/${S}/SKILL.md`, body: S, content: S, hooks: [S], filePath: S }] };
const providers = {
  current: { authType: "openai", modelId: "m", baseUrl: `https://${S}`, apiKey: S },
  providers: [{ kind: "model_provider", status: "ok", authType: "openai", current: true, apiKey: S, envKey: "OPENAI_API_KEY", models: [{ modelId: "m", name: "M", description: "served at https://corp.example/v1", contextLimit: 10, baseUrl: `https://${S}`, envKey: "CORP_KEY", apiKey: S, isCurrent: true, isRuntime: false }] }],
};
const tools = { tools: [{ name: "t", enabled: true, env: { K: S } }] };
const preflight = { cells: [{ kind: "auth", locality: "daemon", status: "ok", detail: { apiKey: S, serviceAccountKey: S, nested: [{ headers: { A: S }, installedPath: S }], ok: 1 } }] };

function expectNone(value: unknown, needles: string[]): void {
  const text = JSON.stringify(value);
  for (const needle of needles) expect({ needle, found: text.includes(needle) }).toEqual({ needle, found: false });
}

test("MCP cells keep their status members, lose config, env, headers, OAuth and service-account details", () => {
  const out = redactMcp(mcp, SECRETS);
  expectNone(out, [S, "config", "env", "headers", "oauth", "ServiceAccount", "npx"]);
  expect(out).toEqual({
    servers: [{ kind: "mcp_server", status: "ok", name: "gh", transport: "stdio", description: "uses [redacted]" }],
    budgets: [{ kind: "mcp_budget", scope: "session", status: "ok", budget: 2 }],
  });
});

test("skills lose bodies, paths and hooks", () => {
  const out = redactSkills(skills, SECRETS);
  expectNone(out, [S, "installedPath", "SKILL.md", "body", "content", "hooks", "filePath"]);
  expect(out).toEqual({ skills: [{ kind: "skill", status: "ok", name: "s", description: "d" }] });
});

test("providers lose base addresses (even in prose), keys and key variable names", () => {
  const out = redactProviders(providers, SECRETS);
  expectNone(out, [S, "baseUrl", "apiKey", "envKey", "OPENAI_API_KEY", "CORP_KEY", "corp.example"]);
  expect(out.current).toEqual({ authType: "openai", modelId: "m" });
  expect((out.providers as any)[0].models[0].description).toBe("served at [address redacted]");
});

test("tools, preflight details and session views lose secret-bearing members at any depth", () => {
  expect(redactTools(tools, SECRETS)).toEqual({ tools: [{ name: "t", enabled: true }] });
  const cells = redactPreflight(preflight, SECRETS);
  expectNone(cells, [S]);
  // Whatever the agent claims, its cells are `acp` ones.
  expect(cells.cells).toEqual([{ kind: "auth", locality: "acp", status: "ok", detail: { nested: [{}], ok: 1 } }]);
  const view = redactSessionView("resources", { v: 1, skills, mcp, extra: { token: S, note: `echo ${S}` } }, SECRETS);
  expectNone(view, [S, "installedPath", "config"]);
});

test("names of environment variables leave no cell: qwen's auth cell members, and secret variable names in prose but the spec's whitelist", () => {
  const auth = {
    cells: [
      {
        kind: "auth",
        status: "error",
        hint: "set OPENAI_API_KEY or GITHUB_TOKEN, then retry",
        detail: { source: "openai", envVarCandidates: ["OPENAI_API_KEY"], presentVar: "OPENAI_API_KEY", apiKeyEnv: "CORP_KEY", variables: ["X_SECRET"] },
      },
    ],
  };
  const out = redactPreflight(auth, SECRETS);
  expectNone(out, ["GITHUB_TOKEN", "CORP_KEY", "X_SECRET", "envVarCandidates", "presentVar"]);
  expect(out.cells).toEqual([{ kind: "auth", locality: "acp", status: "error", hint: "set OPENAI_API_KEY or [variable redacted], then retry", detail: { source: "openai" } }]);
});
