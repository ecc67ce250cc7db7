/** The key hand-over between the daemon and the built-in agent (`src/config/agent-keys.ts`). */
import { describe, expect, test } from "bun:test";
import { closeSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  AgentKeysTooLargeError,
  decodeHandedKeys,
  encodeHandedKeys,
  hostKeyVariableNames,
  keyVariableNames,
  MAX_AGENT_KEYS_BYTES,
  splitAgentEnv,
} from "../../src/config/agent-keys.ts";
import { MAIN_TS } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const PROVIDER_KEYS = ["OPENAI_API_KEY", "OPENROUTER_API_KEY", "DASHSCOPE_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"];

describe("keyVariableNames", () => {
  test("every provider key the agent reads, plus each valid apiKeyEnv of model.providers", () => {
    const names = keyVariableNames({ model: { providers: [{ apiKeyEnv: "MY_CRED" }, { apiKeyEnv: "not a name" }, { apiKeyEnv: 3 }, null, { id: "keyless" }] } });
    expect([...names].sort()).toEqual([...PROVIDER_KEYS, "MY_CRED"].sort());
    expect([...keyVariableNames({ model: "junk" })].sort()).toEqual([...PROVIDER_KEYS].sort());
  });

  test("from the host settings file; an unreadable or malformed one adds nothing", async () => {
    await using home = tempDir("svc-keys-home-");
    expect([...hostKeyVariableNames(home.path)].sort()).toEqual([...PROVIDER_KEYS].sort());
    writeFileSync(join(home.path, "settings.json"), JSON.stringify({ model: { providers: [{ id: "x", apiKeyEnv: "HOST_CRED" }] } }));
    expect(hostKeyVariableNames(home.path).has("HOST_CRED")).toBe(true);
    writeFileSync(join(home.path, "settings.json"), "{not json");
    expect([...hostKeyVariableNames(home.path)].sort()).toEqual([...PROVIDER_KEYS].sort());
  });
});

describe("splitAgentEnv", () => {
  test("keys go to the document, the scrub list's other names nowhere, the rest (in order) to the environment", () => {
    const { env, keys } = splitAgentEnv(
      { SVC_AGENT_FAMILY: "m", PATH: "/bin", OPENAI_API_KEY: "k", MY_CRED: "c", AWS_SECRET_ACCESS_KEY: "a", GITHUB_TOKEN: "t", OPENAI_BASE_URL: "http://x" },
      new Set(["OPENAI_API_KEY", "MY_CRED"]),
    );
    expect(keys).toEqual({ OPENAI_API_KEY: "k", MY_CRED: "c" });
    expect(Object.keys(env)).toEqual(["SVC_AGENT_FAMILY", "PATH", "OPENAI_BASE_URL"]);
  });
});

describe("the key document", () => {
  test("round-trips, and is refused past its bound in bytes", () => {
    const keys = { OPENAI_API_KEY: "sk-€uro", MY_CRED: "c" };
    expect(decodeHandedKeys(encodeHandedKeys(keys)).keys).toEqual(keys);
    // Under the bound in characters, over it in UTF-8 bytes.
    const big = { K: "€".repeat(Math.ceil(MAX_AGENT_KEYS_BYTES / 3)) };
    expect(big.K.length).toBeLessThan(MAX_AGENT_KEYS_BYTES);
    expect(() => encodeHandedKeys(big)).toThrow(AgentKeysTooLargeError);
  });

  test.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["a non-string value", '{"A":1}'],
    ["a bad name", '{"A B":"x"}'],
  ])("a document that is %s is refused", (_, text) => {
    expect(() => decodeHandedKeys(new TextEncoder().encode(text))).toThrow();
  });
});

describe("svc --acp reading its keys", () => {
  /** `svc --acp` with `doc` written to its fd 3 and SVC_AGENT_KEYS_FD set; its exit code and stderr once stdin closes. */
  async function agentWith(doc: string) {
    await using ws = tempDir("svc-keys-ws-");
    const proc = Bun.spawn([process.execPath, MAIN_TS, "--acp"], {
      cwd: ws.path,
      env: { ...process.env, SVC_AGENT_KEYS_FD: "3" },
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    });
    const fd = proc.stdio[3] as number;
    writeSync(fd, doc);
    closeSync(fd);
    proc.stdin.end();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    clearTimeout(timer);
    return { code, stderr };
  }

  test("a malformed document ends the agent at start with exit code 2 and a line saying why", async () => {
    const { code, stderr } = await agentWith("[1]");
    expect(code).toBe(2);
    expect(stderr).toContain("svc --acp: the key document is not a JSON object");
  }, 20_000);

  test("a document past the bound ends the agent at start with exit code 2", async () => {
    const { code, stderr } = await agentWith(JSON.stringify({ OPENAI_API_KEY: "k".repeat(MAX_AGENT_KEYS_BYTES) }));
    expect(code).toBe(2);
    expect(stderr).toContain(`svc --acp: the key document is larger than ${MAX_AGENT_KEYS_BYTES} bytes`);
  }, 20_000);

  test("a well-formed document is read and the agent serves until stdin closes", async () => {
    const { code, stderr } = await agentWith(JSON.stringify({ OPENAI_API_KEY: "k" }));
    expect(code).toBe(0);
    expect(stderr).not.toContain("key document");
  }, 20_000);
});
