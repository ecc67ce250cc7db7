/**
 * `--agent <name>` end to end, with the fake agent standing in for the real one through settings
 * `agents.<name>.path`: the launched agent's profile (authenticate after initialize, the model
 * endpoint's variables), the profile kept or refined by `agentInfo.name`, and the answer when the
 * agent is not installed.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { runSvc } from "../helpers/daemon.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { preflightCell } from "../helpers/preflight.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** The 501 of a session view names the session's profile (`… (profile <name>) does not report …`). */
async function profileOf(d: FakeAgentDaemon, sessionId: string): Promise<string | undefined> {
  const reply = await d.json<{ error?: string }>("GET", `/session/${sessionId}/tasks`);
  return /\(profile ([a-z-]+)\)/.exec(reply.body?.error ?? "")?.[1];
}

const KEY = "sk-test-0123456789abcdef";
const codexLike = { SVC_CLI_ENTRY: undefined, FAKE_AGENT_NAME: "@agentclientprotocol/codex-acp", FAKE_AGENT_AUTH_METHODS: "api-key,chat-gpt" };

describe("--agent codex", () => {
  test("with OPENAI_API_KEY set, the daemon authenticates with api-key after initialize, before session/new", async () => {
    await using d = await fakeAgentDaemon(["--agent", "codex"], { env: { ...codexLike, OPENAI_API_KEY: KEY }, settings: { agents: { codex: { path: FAKE_AGENT_ENTRY } } } });
    const { sessionId } = await d.createSession();
    const methods = (await d.wire()).map((e) => e.method).filter((m) => m !== undefined);
    expect(methods.slice(0, 3)).toEqual(["initialize", "authenticate", "session/new"]);
    expect((await d.sentToAgent("authenticate"))[0]?.params).toEqual({ methodId: "api-key" });
    expect(await profileOf(d, sessionId)).toBe("codex");
  });

  test("without OPENAI_API_KEY nothing is sent, and session/new fails as the agent says", async () => {
    await using d = await fakeAgentDaemon(["--agent", "codex"], { env: { ...codexLike, OPENAI_API_KEY: undefined }, settings: { agents: { codex: { path: FAKE_AGENT_ENTRY } } } });
    const reply = await d.json("POST", "/session", {});
    expect(reply.status).not.toBe(200);
    expect(await d.sentToAgent("authenticate")).toEqual([]);
  });

  test("settings agents.codex.model fails boot saying to set codex's endpoint in its config.toml; no agent starts, no key goes anywhere", async () => {
    await using scratch = tempDir("svc-codex-endpoint-");
    const home = join(scratch.path, "home");
    const dump = join(scratch.path, "env.json");
    mkdirSync(home);
    writeFileSync(join(home, "settings.json"), JSON.stringify({ agents: { codex: { path: envDumpingAgent(scratch.path, dump), model: { baseUrl: "http://127.0.0.1:9/v1", model: "gpt-x" } } } }));
    const result = await runSvc(["--port", "0", "--workspace", scratch.path, "--agent", "codex"], {
      env: { ...codexLike, SVC_HOME: home, CODEX_API_KEY: "sk-REAL-codex-user-key-123", OPENAI_API_KEY: "sk-REAL-openai-user-key-123" },
      cwd: scratch.path,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("agents.codex.model is not supported");
    expect(result.stderr).toContain("config.toml");
    expect(result.stderr).not.toContain("sk-REAL");
    expect(existsSync(dump)).toBe(false);
  });
});

describe("profiles from --agent and agentInfo.name", () => {
  test("--agent claude keeps the claude profile when the agent names itself otherwise; a generic launch of a claude-named agent gets it too", async () => {
    await using named = await fakeAgentDaemon(["--agent", "claude"], { env: { SVC_CLI_ENTRY: undefined }, settings: { agents: { claude: { path: FAKE_AGENT_ENTRY } } } });
    expect(await profileOf(named, (await named.createSession()).sessionId)).toBe("claude");
    await using generic = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "@agentclientprotocol/claude-agent-acp" } });
    expect(await profileOf(generic, (await generic.createSession()).sessionId)).toBe("claude");
  });

  test("a configured model endpoint reaches the child as the agent's own variables (claude: ANTHROPIC_*), with the profile's spawn variables", async () => {
    await using d = await fakeAgentDaemon(["--agent", "claude"], {
      env: { SVC_CLI_ENTRY: undefined, MOCK_ANTHROPIC_KEY: KEY, IS_SANDBOX: "yes" },
      settings: { agents: { claude: { path: FAKE_AGENT_ENTRY, model: { baseUrl: "http://127.0.0.1:9/anthropic", model: "mock-sonnet", apiKeyEnv: "MOCK_ANTHROPIC_KEY" } } } },
    });
    await d.createSession();
    const env = (await d.wire()).find((e) => e.event === "env");
    expect(env?.modelVars).toMatchObject({ ANTHROPIC_BASE_URL: "http://127.0.0.1:9/anthropic", ANTHROPIC_MODEL: "mock-sonnet", ANTHROPIC_API_KEY: "<set>" });
    // The profile's own variables: no self-update, and an IS_SANDBOX Claude Code would refuse emptied.
    expect(env?.modelVars).toMatchObject({ DISABLE_AUTOUPDATER: "1", IS_SANDBOX: "" });
  });
});

describe("an agent that is not installed", () => {
  test("POST /session answers 503 cli_entry_missing with the install command; preflight shows the same", async () => {
    await using d = await fakeAgentDaemon(["--agent", "gemini"], { env: { SVC_CLI_ENTRY: undefined } });
    const reply = await d.json<{ code: string; error: string; hint: string; retryable: boolean }>("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "cli_entry_missing", error: "The gemini agent is not installed", retryable: false });
    expect(reply.body.hint).toContain("svc agents install gemini");
    expect(await d.agentPids()).toEqual([]);
    const cell = await preflightCell(d, "cli_entry");
    expect(cell).toMatchObject({ status: "error", reason: "not_found", hint: reply.body.hint });
  });
});

describe("the workspace selects nothing for the agent process", () => {
  test("a workspace .env and a bunfig.toml preload have no effect on a script agent started there", async () => {
    await using ws = tempDir("svc-ws-hostile-");
    const marker = join(ws.path, "PRELOAD_RAN");
    writeFileSync(join(ws.path, ".env"), "OPENAI_BASE_URL=http://evil.example\nANTHROPIC_API_KEY=from-dotenv\n");
    writeFileSync(join(ws.path, ".env.local"), "GEMINI_API_KEY=from-dotenv-local\n");
    writeFileSync(join(ws.path, "bunfig.toml"), 'preload = ["./pre.ts"]\n');
    writeFileSync(join(ws.path, "pre.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
    await using d = await fakeAgentDaemon(["--agent", "claude"], { workspace: ws.path, env: { SVC_CLI_ENTRY: undefined }, settings: { agents: { claude: { path: FAKE_AGENT_ENTRY } } } });
    await d.createSession();
    const env = (await d.wire()).find((e) => e.event === "env");
    expect(env).toBeDefined();
    expect(env?.modelVars).not.toHaveProperty("OPENAI_BASE_URL");
    expect(env?.modelVars).not.toHaveProperty("ANTHROPIC_API_KEY");
    expect(env?.modelVars).not.toHaveProperty("GEMINI_API_KEY");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a script agent cannot make bun install packages", () => {
  test("an import bun cannot resolve fails the start; bun never asks a registry (auto-install is off)", async () => {
    await using dir = tempDir("svc-agent-noinstall-");
    const asked: string[] = [];
    using registry = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (asked.push(new URL(req.url).pathname), new Response("{}", { status: 404 })) });
    // No node_modules above this entry: without --no-install bun auto-installs the import from the registry.
    const entry = join(dir.path, "agent.ts");
    writeFileSync(entry, 'import "svc-test-no-such-package-zz";\n');
    const env = { SVC_CLI_ENTRY: entry, BUN_CONFIG_REGISTRY: `http://127.0.0.1:${registry.port}/`, NPM_CONFIG_REGISTRY: `http://127.0.0.1:${registry.port}/` };
    await using d = await fakeAgentDaemon([], { env });
    const reply = await d.json<{ code?: string }>("POST", "/session", { cwd: d.workspace });
    expect(reply.status).toBe(503);
    expect(reply.body?.code).toBe("agent_start_failed");
    expect(asked).toEqual([]);
  });
});

/** A script agent that writes its environment to `file` and then runs the fake agent. */
function envDumpingAgent(dir: string, file: string): string {
  const entry = join(dir, "env-dump-agent.ts");
  writeFileSync(entry, `require("node:fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify(process.env));\nawait import(${JSON.stringify(FAKE_AGENT_ENTRY)});\n`);
  return entry;
}

describe("a custom endpoint configured without a key", () => {
  test.each([
    ["claude", "ANTHROPIC_API_KEY", "https://llm-gateway.example.net"],
    ["qwen-code", "OPENAI_API_KEY", "https://llm-gateway.example.net/v1"],
  ] as const)("--agent %s: the child gets a placeholder in %s, never the user's inherited key", async (agent, keyVar, baseUrl) => {
    await using scratch = tempDir("svc-envdump-");
    const dump = join(scratch.path, "env.json");
    await using d = await fakeAgentDaemon(["--agent", agent], {
      env: { SVC_CLI_ENTRY: undefined, [keyVar]: "sk-REAL-user-key-0123456789", ANTHROPIC_AUTH_TOKEN: "REAL-bearer-token-0123456789" },
      settings: { agents: { [agent]: { path: envDumpingAgent(scratch.path, dump), model: { baseUrl } } } },
    });
    await d.createSession();
    const env = JSON.parse(readFileSync(dump, "utf8")) as Record<string, string>;
    expect(env[keyVar]).toBe("svc-no-key");
    expect(JSON.stringify(env)).not.toContain("sk-REAL-user-key");
    // Claude Code would send a bearer token to the same host.
    if (agent === "claude") expect(env.ANTHROPIC_AUTH_TOKEN).toBe("");
  });
});

describe("the model endpoint's secrets in the daemon log", () => {
  test("an agent printing its endpoint key (apiKeyEnv with any name) and the base URL's password has both redacted", async () => {
    await using scratch = tempDir("svc-leaky-");
    const entry = join(scratch.path, "leaky-agent.ts");
    writeFileSync(entry, 'process.stderr.write(`Error: API key not valid: ${process.env.GEMINI_API_KEY} base=${process.env.GOOGLE_GEMINI_BASE_URL}\\n`);\nprocess.exit(1);\n');
    await using d = await fakeAgentDaemon(["--agent", "gemini"], {
      env: { SVC_CLI_ENTRY: undefined, GEMINI_PROD: "AIzaSuperSecretValue123" },
      settings: { agents: { gemini: { path: entry, model: { baseUrl: "http://user:hunter2pass@127.0.0.1:9/", apiKeyEnv: "GEMINI_PROD" } } } },
    });
    expect((await d.json("POST", "/session", {})).status).not.toBe(200);
    const line = await until(() => d.logs.find((l) => l.includes("API key not valid")), 10_000);
    expect(line).toContain("API key not valid: [redacted] base=[redacted]");
    expect(d.logs.join("\n")).not.toContain("AIzaSuperSecretValue123");
    expect(d.logs.join("\n")).not.toContain("hunter2pass");
  });

  test("a base-URL password holding `@` and a key in its query are redacted however the agent spells them (href, decoded password, query value)", async () => {
    await using scratch = tempDir("svc-leaky-");
    const entry = join(scratch.path, "leaky-agent.ts");
    writeFileSync(
      entry,
      'const base = process.env.GOOGLE_GEMINI_BASE_URL; const u = new URL(base);\n' +
        'process.stderr.write(`Error: key=${u.searchParams.get("key")} raw=${base} href=${u.href} pw=${decodeURIComponent(u.password)}\\n`);\nprocess.exit(1);\n',
    );
    await using d = await fakeAgentDaemon(["--agent", "gemini"], {
      env: { SVC_CLI_ENTRY: undefined, GEMINI_PROD: "AIzaSuperSecretValue123" },
      settings: { agents: { gemini: { path: entry, model: { baseUrl: "http://user:p@ss-Hunter2Secret@127.0.0.1:9/?key=AIzaQueryKeySecret99", apiKeyEnv: "GEMINI_PROD" } } } },
    });
    expect((await d.json("POST", "/session", {})).status).not.toBe(200);
    const line = await until(() => d.logs.find((l) => l.includes("Error: key=")), 10_000);
    expect(line).toContain("Error: key=[redacted] raw=[redacted] href=[redacted] pw=[redacted]");
    for (const secret of ["Hunter2Secret", "AIzaQueryKeySecret99", "AIzaSuperSecretValue123"]) expect(d.logs.join("\n")).not.toContain(secret);
  });
});
