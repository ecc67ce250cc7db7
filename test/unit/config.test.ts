/**
 * Boot rules of `resolveConfig` beyond single flag values: the auth/bind/origin safety rules, the
 * workspace, the data dir and `settings.json` policy validation.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BootError, InvalidAllowOriginPatternError } from "../../src/config/boot-error.ts";
import { resolveConfig } from "../../src/config/config.ts";
import { MAX_SETTINGS_BYTES } from "../../src/config/settings-file.ts";
import { MAX_TOKEN_LENGTH } from "../../src/config/token.ts";
import { configFixture, type Env } from "../helpers/config.ts";

describe("auth and bind safety rules", () => {
  test("--require-auth without a token fails boot naming the flag", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--require-auth"]).message).toMatch(/--require-auth.*token/);
    expect(fx.bootError(["--require-auth", "--token", ""]).message).toMatch(/--token: must not be empty/);
    expect(fx.bootError(["--require-auth"], { SVC_SERVER_TOKEN: "" }).message).toMatch(/--require-auth/);
  });

  test("--require-auth boots with a token from the flag or the environment", async () => {
    await using fx = configFixture();
    expect(fx.resolve(["--require-auth", "--token", "t"]).requireAuth).toBe(true);
    expect(fx.resolve(["--require-auth"], { SVC_SERVER_TOKEN: "t" }).requireAuth).toBe(true);
  });

  test.each(["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "example.com", "128.0.0.1"])(
    "a non-loopback bind (%s) without a token fails boot",
    async (host) => {
      await using fx = configFixture();
      const err = fx.bootError(["--hostname", host]);
      expect(err.message).toContain("--hostname");
      expect(err.message).toContain("token");
    },
  );

  test("a non-loopback bind with a token resolves (and is not a loopback bind)", async () => {
    await using fx = configFixture();
    const config = fx.resolve(["--hostname", "0.0.0.0"], { SVC_SERVER_TOKEN: "t" });
    expect([config.hostname, config.loopbackBind]).toEqual(["0.0.0.0", false]);
  });

  test.each(["127.0.0.1", "127.255.255.254", "localhost", "LOCALHOST", "::1", "[::1]"])("%s is a loopback bind needing no token", async (host) => {
    await using fx = configFixture();
    const config = fx.resolve(["--hostname", host]);
    expect(config.loopbackBind).toBe(true);
    expect(config.token).toBeNull();
  });

  test("127.0.0.256 is not mistaken for loopback", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--hostname", "127.0.0.256"]).message).toContain("--hostname");
  });

  test("an empty --hostname fails boot", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--hostname", ""]).message).toContain("--hostname");
  });

  test.each([" padded", "padded ", "\ttab"])("a token with surrounding white space (%j) fails boot", async (token) => {
    await using fx = configFixture();
    expect(fx.bootError([], { SVC_SERVER_TOKEN: token }).message).toMatch(/token/);
  });

  test("an explicitly empty --token fails boot; an empty SVC_SERVER_TOKEN is unset, with a warning", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--token", ""]).message).toBe("--token: must not be empty (omit it to run without a token)");
    const empty = fx.resolve([], { SVC_SERVER_TOKEN: "" });
    expect(empty.token).toBeNull();
    expect(empty.warnings).toContain("SVC_SERVER_TOKEN is set but empty: the daemon runs without a token");
    expect(fx.resolve([], {}).warnings).not.toContain("SVC_SERVER_TOKEN is set but empty: the daemon runs without a token");
    expect(fx.resolve(["--token", "t"], { SVC_SERVER_TOKEN: "" }).warnings.filter((w) => w.includes("empty"))).toEqual([]);
  });

  test.each<[string, string]>([
    ["the lowest visible character", "!"],
    ["the highest visible character", "~"],
    ["every visible ASCII character", Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i)).join("")],
    ["hex", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
    ["base64 with padding", "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="],
    ["base64url", "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg"],
    ["the longest accepted", "x".repeat(MAX_TOKEN_LENGTH)],
  ])("a token of %s boots", async (_what, token) => {
    await using fx = configFixture();
    expect(fx.resolve([], { SVC_SERVER_TOKEN: token }).token).toBe(token);
    expect(fx.resolve(["--token", token]).token).toBe(token);
  });

  test.each<[string, string, RegExp]>([
    ["a space inside", "secret-token value", /contains a space \(character 13\)/],
    ["white space only", "   ", /must not start or end with white space/],
    ["a trailing newline", "secret-token-value\n", /must not start or end with white space/],
    ["a tab inside", "secret-token\tvalue", /contains a control character \(character 13\)/],
    ["an escape character", "secret-token\x1bvalue", /contains a control character \(character 13\)/],
    ["DEL", "secret-token\x7fvalue", /contains a control character \(character 13\)/],
    ["NUL", "secret-token\0value", /contains a control character \(character 13\)/],
    ["Latin-1", "secret-tokén-value", /contains a non-ASCII character \(character 11\)/],
    ["an emoji", "secret-token-🔑-value", /contains a non-ASCII character \(character 14\)/],
    ["a non-breaking space", "secret-token\u00a0value", /contains a non-ASCII character \(character 13\)/],
    ["one character too many", "x".repeat(MAX_TOKEN_LENGTH + 1), new RegExp(`longer than ${MAX_TOKEN_LENGTH} characters`)],
  ])("a token with %s fails boot with one line that does not print it", async (_what, token, message) => {
    await using fx = configFixture();
    for (const err of [fx.bootError([], { SVC_SERVER_TOKEN: token }), fx.bootError(["--token", token])]) {
      expect(err.message).toMatch(message);
      expect(err.message).toMatch(/^the bearer token \(--token or SVC_SERVER_TOKEN\) /);
      expect(err.message).not.toContain("secret-tok");
      expect(err.message).not.toContain("xxxxxxxx");
      expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\uffff]/);
    }
  });

  test("boot error messages never contain the token", async () => {
    await using fx = configFixture();
    const token = " secret-token-value ";
    expect(fx.bootError([], { SVC_SERVER_TOKEN: token }).message).not.toContain("secret-token-value");
    expect(fx.bootError(["--port", "x"], { SVC_SERVER_TOKEN: "secret-token-value" }).message).not.toContain("secret-token-value");
  });
});

describe("--allow-origin boot rules", () => {
  test("'*' without a token fails boot", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--allow-origin", "*"]).message).toMatch(/--allow-origin '\*'.*token/);
  });

  test.each<[string, Env, string[]]>([
    ["flag token", {}, ["--token", "t"]],
    ["env token", { SVC_SERVER_TOKEN: "t" }, []],
  ])("'*' with a %s boots with exactly one warning", async (_what, env, extra) => {
    await using fx = configFixture();
    const config = fx.resolve(["--allow-origin", "*", ...extra], env);
    expect(config.origins.any).toBe(true);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toContain("--allow-origin '*'");
  });

  test("no warning without '*'", async () => {
    await using fx = configFixture();
    expect(fx.resolve(["--allow-origin", "http://localhost:5173"]).warnings).toEqual([]);
    expect(fx.resolve([]).warnings).toEqual([]);
  });

  test("a non-loopback origin needs a token; a loopback one does not", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--allow-origin", "https://app.example"]).message).toMatch(/--allow-origin.*token/);
    expect(fx.bootError(["--allow-origin", "http://localhost:5173", "--allow-origin", "https://app.example"]).message).toMatch(/token/);
    expect(fx.resolve(["--allow-origin", "https://app.example", "--token", "t"]).origins.origins.has("https://app.example")).toBe(true);
    expect(fx.resolve(["--allow-origin", "http://[::1]:3000"]).origins.origins.has("http://[::1]:3000")).toBe(true);
  });

  test("the pattern check runs before the token rule, so a bad pattern is named even without a token", async () => {
    await using fx = configFixture();
    expect(fx.bootError(["--allow-origin", "http://app.example/"])).toBeInstanceOf(InvalidAllowOriginPatternError);
  });
});

describe("workspace", () => {
  test("a missing workspace fails boot naming --workspace", async () => {
    await using fx = configFixture();
    const missing = join(fx.workspace, "nope");
    const err = fx.bootError(["--workspace", missing]);
    expect(err.message).toBe(`--workspace: ${missing} does not exist`);
  });

  test("a workspace that is a file fails boot", async () => {
    await using fx = configFixture();
    const file = join(fx.workspace, "file.txt");
    writeFileSync(file, "x");
    expect(fx.bootError(["--workspace", file]).message).toBe(`--workspace: ${file} is not a directory`);
  });

  test("a dangling symlink is reported as missing", async () => {
    await using fx = configFixture();
    const link = join(fx.workspace, "dangling");
    symlinkSync(join(fx.workspace, "gone"), link);
    expect(fx.bootError(["--workspace", link]).message).toContain("does not exist");
  });

  test("the workspace is canonical: symlinks and dot segments resolved", async () => {
    await using fx = configFixture();
    mkdirSync(join(fx.workspace, "real"));
    symlinkSync(join(fx.workspace, "real"), join(fx.workspace, "link"));
    expect(fx.resolve(["--workspace", join(fx.workspace, "link")]).workspace).toBe(join(fx.workspace, "real"));
    expect(fx.resolve(["--workspace", join(fx.workspace, "real", "..", "real", ".")]).workspace).toBe(join(fx.workspace, "real"));
  });
});

describe("data dir", () => {
  test("SVC_HOME wins", async () => {
    await using fx = configFixture();
    expect(fx.resolve([]).dataDir).toBe(fx.home);
  });

  test("without SVC_HOME: XDG on Linux, Application Support on macOS", async () => {
    await using fx = configFixture();
    const base = { args: [], cwd: fx.workspace, version: "1", selfEntry: undefined };
    const linux = resolveConfig({ ...base, env: { HOME: "/home/u", XDG_DATA_HOME: fx.home }, platform: "linux" });
    expect(linux.dataDir).toBe(join(fx.home, "svc"));
    expect(resolveConfig({ ...base, env: { HOME: fx.home }, platform: "linux" }).dataDir).toBe(join(fx.home, ".local", "share", "svc"));
    expect(resolveConfig({ ...base, env: { HOME: fx.home }, platform: "darwin" }).dataDir).toBe(join(fx.home, "Library", "Application Support", "svc"));
  });
});

describe("settings.json policy", () => {
  test("no settings file: first-responder, no quorum", async () => {
    await using fx = configFixture();
    expect(fx.resolve([]).settings).toEqual({ permissionStrategy: "first-responder", consensusQuorum: null, folderTrust: { enabled: true, trustedFolders: [] }, autoTitle: true, agent: null, agentPaths: {}, agentEndpoints: {}, channels: new Map(), maxSnapshotBytes: null });
  });

  test.each(["first-responder", "designated", "consensus", "local-only"])("policy.permissionStrategy %s is accepted", async (strategy) => {
    await using fx = configFixture();
    fx.writeSettings({ policy: { permissionStrategy: strategy }, unrelated: { key: true } });
    expect(fx.resolve([]).settings.permissionStrategy).toBe(strategy);
  });

  test.each<[string, unknown, RegExp]>([
    ["an unknown strategy", { policy: { permissionStrategy: "majority" } }, /policy\.permissionStrategy must be one of/],
    ["a strategy of the wrong type", { policy: { permissionStrategy: 1 } }, /policy\.permissionStrategy/],
    ["a strategy in the wrong case", { policy: { permissionStrategy: "Consensus" } }, /policy\.permissionStrategy/],
    ["a policy that is not an object", { policy: "consensus" }, /"policy" must be an object/],
    ["a policy that is an array", { policy: ["consensus"] }, /"policy" must be an object/],
    ["a zero quorum", { policy: { permissionStrategy: "consensus", consensusQuorum: 0 } }, /policy\.consensusQuorum/],
    ["a fractional quorum", { policy: { consensusQuorum: 1.5 } }, /policy\.consensusQuorum/],
    ["a string quorum", { policy: { consensusQuorum: "2" } }, /policy\.consensusQuorum/],
    ["malformed JSON", "{ not json", /is not valid JSON/],
    ["a JSON array", "[]", /must hold a JSON object/],
    ["JSON null", "null", /must hold a JSON object/],
  ])("%s fails boot naming the file and key", async (_what, doc, message) => {
    await using fx = configFixture();
    fx.writeSettings(doc);
    const err = fx.bootError([]);
    expect(err).toBeInstanceOf(BootError);
    expect(err.message).toMatch(message);
    expect(err.message).toContain(join(fx.home, "settings.json"));
    expect(err.message).not.toContain("\n");
  });

  test("ui.autoTitle is on unless set false; another value fails boot naming the key", async () => {
    await using fx = configFixture();
    fx.writeSettings({ ui: { autoTitle: false } });
    expect(fx.resolve([]).settings.autoTitle).toBe(false);
    fx.writeSettings({ ui: { autoTitle: "no" } });
    expect(() => fx.resolve([])).toThrow("ui.autoTitle must be true or false");
  });

  test("a valid quorum is kept", async () => {
    await using fx = configFixture();
    fx.writeSettings({ policy: { permissionStrategy: "consensus", consensusQuorum: 3 } });
    expect(fx.resolve([]).settings).toEqual({ permissionStrategy: "consensus", consensusQuorum: 3, folderTrust: { enabled: true, trustedFolders: [] }, autoTitle: true, agent: null, agentPaths: {}, agentEndpoints: {}, channels: new Map(), maxSnapshotBytes: null });
  });

  test("checkpoints.maxBytes sets the snapshot bound; --max-snapshot-bytes wins; junk fails boot", async () => {
    await using fx = configFixture();
    expect(fx.resolve([]).limits.maxSnapshotBytes).toBe(256 * 1024 * 1024);
    fx.writeSettings({ checkpoints: { maxBytes: 4096 } });
    expect(fx.resolve([]).limits.maxSnapshotBytes).toBe(4096);
    expect(fx.resolve(["--max-snapshot-bytes", "8192"]).limits.maxSnapshotBytes).toBe(8192);
    fx.writeSettings({ checkpoints: { maxBytes: 12 } });
    expect(() => fx.resolve([])).toThrow("checkpoints.maxBytes must be a whole number of at least 1024");
  });

  test("a settings file over 1 MiB is refused", async () => {
    await using fx = configFixture();
    fx.writeSettings(JSON.stringify({ pad: "x".repeat(1 << 20) }));
    expect(fx.bootError([]).message).toContain("larger than 1 MiB");
  });
});

describe("settings.json is read safely", () => {
  const settingsFile = (fx: { home: string }) => join(fx.home, "settings.json");
  /** A settings document of exactly `bytes` bytes choosing `consensus`. */
  const paddedTo = (bytes: number) => {
    const shell = JSON.stringify({ policy: { permissionStrategy: "consensus" }, pad: "" });
    return shell.replace('"pad":""', `"pad":"${"x".repeat(bytes - shell.length)}"`);
  };

  test("a UTF-8 byte order mark is accepted", async () => {
    await using fx = configFixture();
    fx.writeSettings(`\ufeff${JSON.stringify({ policy: { permissionStrategy: "consensus" } })}`);
    expect(fx.resolve([]).settings.permissionStrategy).toBe("consensus");
  });

  test("exactly 1 MiB is read; one byte more is refused", async () => {
    await using fx = configFixture();
    fx.writeSettings(paddedTo(MAX_SETTINGS_BYTES));
    expect(fx.resolve([]).settings.permissionStrategy).toBe("consensus");
    fx.writeSettings(paddedTo(MAX_SETTINGS_BYTES + 1));
    expect(fx.bootError([]).message).toBe(`settings file ${settingsFile(fx)} is larger than 1 MiB`);
  });

  test("a symlink to a regular file is followed", async () => {
    await using fx = configFixture();
    writeFileSync(join(fx.home, "real.json"), JSON.stringify({ policy: { permissionStrategy: "local-only" } }));
    symlinkSync(join(fx.home, "real.json"), settingsFile(fx));
    expect(fx.resolve([]).settings.permissionStrategy).toBe("local-only");
  });

  test.each<[string, (file: string) => void]>([
    ["a directory", (file) => mkdirSync(file)],
    ["a symlink to a directory", (file) => symlinkSync("/", file)],
    ["a symlink to /dev/null", (file) => symlinkSync("/dev/null", file)],
  ])("%s is not a regular file", async (_what, arrange) => {
    await using fx = configFixture();
    arrange(settingsFile(fx));
    expect(fx.bootError([]).message).toBe(`settings file ${settingsFile(fx)} is not a regular file`);
  });

  test("an empty file is not valid JSON; a dangling symlink is no file; a loop cannot be read", async () => {
    await using fx = configFixture();
    fx.writeSettings("");
    expect(fx.bootError([]).message).toStartWith(`settings file ${settingsFile(fx)} is not valid JSON`);
    rmSync(settingsFile(fx));
    symlinkSync(join(fx.home, "nowhere.json"), settingsFile(fx));
    expect(fx.resolve([]).settings.permissionStrategy).toBe("first-responder");
    rmSync(settingsFile(fx));
    symlinkSync(settingsFile(fx), settingsFile(fx));
    expect(fx.bootError([]).message).toBe(`cannot read settings file ${settingsFile(fx)} (ELOOP)`);
  });

  test("a data dir whose path holds a newline still fails boot in one line", async () => {
    await using fx = configFixture();
    const home = join(fx.home, "two\nlines");
    mkdirSync(home);
    writeFileSync(join(home, "settings.json"), "{");
    const err = fx.bootError([], { SVC_HOME: home });
    expect(err.message).not.toContain("\n");
    expect(err.message).toContain("two\\x0alines");
  });
});

describe("agent launch", () => {
  test("the entry is SVC_CLI_ENTRY (resolved against cwd), else the daemon's own script", async () => {
    await using fx = configFixture();
    expect(fx.resolve([]).agent.cliEntry).toEqual({ path: "/opt/svc/main.ts", source: "argv" });
    expect(fx.resolve([], { SVC_CLI_ENTRY: "agent.js" }).agent.cliEntry).toEqual({ path: join(fx.workspace, "agent.js"), source: "env" });
  });

  test.each<[string | undefined, string[]]>([
    [undefined, ["--acp"]],
    ["", ["--acp"]],
    ["--acp --verbose", ["--acp", "--verbose"]],
    ['["--model", "a b"]', ["--model", "a b"]],
  ])("SVC_CLI_ARGS %j gives %j", async (raw, args) => {
    await using fx = configFixture();
    expect(fx.resolve([], { SVC_CLI_ARGS: raw }).agent.cliArgs).toEqual(args);
  });

  test.each(["[not json", "[1, 2]", '["a", null]'])("a malformed SVC_CLI_ARGS %j fails boot", async (raw) => {
    await using fx = configFixture();
    expect(fx.bootError([], { SVC_CLI_ARGS: raw }).message).toContain("SVC_CLI_ARGS");
  });
});
