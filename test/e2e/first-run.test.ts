/**
 * The first run, as a real `svc serve` process: the listening line names the web UI, a start
 * without a model for the built-in agent says what to set (and only then), `--open` hands the UI's
 * address to the platform's opener (a fake `xdg-open` on PATH here) with no token, in its arguments
 * or its environment, a missing opener is a warning, and `--help` lists every command,
 * the defaults and the model variables.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENV_PROVIDERS } from "../../src/config/env-providers.ts";
import { runSvc, spawnDaemon } from "../helpers/daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { pidAlive } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";

const NO_MODEL = /WARN no model is configured for the built-in agent: set OPENAI_API_KEY and OPENAI_MODEL/;

/** No provider variable from the test's own environment reaches the daemon. */
const NO_PROVIDERS: Record<string, undefined> = Object.fromEntries(
  ENV_PROVIDERS.flatMap((p) => [p.keyEnv, p.modelEnv, ...(p.baseUrlEnv ? [p.baseUrlEnv] : [])]).map((name) => [name, undefined]),
);

function home(dir: TempDir, settings?: unknown): string {
  const path = join(dir.path, "home");
  mkdirSync(path, { recursive: true });
  if (settings !== undefined) writeFileSync(join(path, "settings.json"), JSON.stringify(settings));
  return path;
}

type Started = Awaited<ReturnType<typeof spawnDaemon>>;

/** A daemon from the test's temp dir; no provider variable of the test's environment reaches it. */
async function started(args: string[], env: Record<string, string | undefined>, dir: TempDir) {
  return spawnDaemon(["--port", "0", "--workspace", dir.path, ...args], { env: { ...NO_PROVIDERS, ...env }, cwd: dir.path });
}

/** The daemon's stderr up to its "listening" log line, which comes after every start-up warning. */
async function startupLog(d: Started): Promise<string> {
  return until(() => (/ INFO listening /.test(d.stderr()) ? d.stderr() : undefined), 5000, "the listening log line");
}

describe("the listening line", () => {
  test("names the web UI's address", async () => {
    await using dir = tempDir();
    await using d = await started([], { SVC_HOME: home(dir) }, dir);
    const line = d.stdout().trimEnd();
    expect(line).toEndWith(` listening on ${d.url} (web UI: ${d.url}/)`);
    const page = await fetch(`${d.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
  });

  test("without the UI (--no-web) it names none", async () => {
    await using dir = tempDir();
    await using d = await started(["--no-web"], { SVC_HOME: home(dir) }, dir);
    expect(d.stdout()).toEndWith(` listening on ${d.url}\n`);
  });
});

describe("the data dir", () => {
  test("one that already exists open to others is narrowed to 0700 at boot, and the log says so", async () => {
    await using dir = tempDir();
    const svcHome = home(dir);
    chmodSync(svcHome, 0o755);
    await using d = await started([], { SVC_HOME: svcHome }, dir);
    const log = await startupLog(d);
    expect(statSync(svcHome).mode & 0o777).toBe(0o700);
    expect(log).toContain("the data dir was open to other users (mode 0755); narrowed to 0700");
  });

  test.skipIf(process.getuid?.() !== 0)("another user's is left as it is, with a warning (as root only: chown)", async () => {
    await using dir = tempDir();
    const svcHome = home(dir);
    chmodSync(svcHome, 0o777);
    chownSync(svcHome, 65534, 65534);
    await using d = await started(["--no-web"], { SVC_HOME: svcHome }, dir);
    const log = await startupLog(d);
    expect(statSync(svcHome).mode & 0o777).toBe(0o777);
    expect(log).toContain("the data dir is open to other users (mode 0777) and was left so: it belongs to another user");
  });
});

describe("a start without a model", () => {
  test("the built-in agent without one: one warning line naming what to set, and the settings file", async () => {
    await using dir = tempDir();
    const svcHome = home(dir);
    await using d = await started([], { SVC_HOME: svcHome }, dir);
    const lines = (await startupLog(d)).split("\n").filter((l) => NO_MODEL.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join(svcHome, "settings.json"));
    expect(lines[0]).toContain("svc serve --help");
  });

  const configured: [string, Record<string, string>, unknown][] = [
    ["a hosted key and model", { OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "m" }, undefined],
    ["a local server's base URL and model, no key", { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_MODEL: "m" }, undefined],
    ["another provider's pair", { ANTHROPIC_API_KEY: "k", ANTHROPIC_MODEL: "m" }, undefined],
    ["model.providers in the settings file", {}, { model: { providers: [{ id: "local", baseUrl: "http://127.0.0.1:9/v1", models: ["m"] }] } }],
  ];
  test.each(configured)("no warning with %s", async (_what, env, settings) => {
    await using dir = tempDir();
    await using d = await started([], { SVC_HOME: home(dir, settings), ...env }, dir);
    expect(await startupLog(d)).not.toMatch(NO_MODEL);
  });

  test("no warning with a provider set up through the API (the credentials file)", async () => {
    await using dir = tempDir();
    const svcHome = home(dir);
    const provider = { id: "local", kind: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", models: ["m"], apiKey: "", source: "api", updatedAt: 1 };
    writeFileSync(join(svcHome, "credentials.json"), JSON.stringify({ v: 1, providers: [provider] }), { mode: 0o600 });
    await using d = await started([], { SVC_HOME: svcHome }, dir);
    expect(await startupLog(d)).not.toMatch(NO_MODEL);
  });

  test("a model without its key or base URL is no model: the warning stays", async () => {
    await using dir = tempDir();
    await using d = await started([], { SVC_HOME: home(dir), OPENAI_MODEL: "m" }, dir);
    expect(await startupLog(d)).toMatch(NO_MODEL);
  });

  test("another agent reads its own configuration: no warning", async () => {
    await using dir = tempDir();
    const entry = join(dir.path, "agent.js");
    writeFileSync(entry, "");
    await using d = await started(["--agent", "generic"], { SVC_HOME: home(dir), SVC_CLI_ENTRY: entry }, dir);
    expect(await startupLog(d)).not.toMatch(NO_MODEL);
  });
});

/** A fake `xdg-open` that records its arguments and environment, alone on PATH with the shell's tools. */
function fakeOpener(dir: TempDir, exitCode = 0): { path: string; args: string; env: string } {
  const bin = join(dir.path, "bin");
  mkdirSync(bin, { recursive: true });
  const args = join(dir.path, "opener-args");
  const env = join(dir.path, "opener-env");
  const script = join(bin, "xdg-open");
  writeFileSync(script, `#!/bin/sh\nenv > '${env}.tmp' && mv '${env}.tmp' '${env}'\nprintf '%s\\n' "$@" > '${args}.tmp' && mv '${args}.tmp' '${args}'\nexit ${exitCode}\n`);
  chmodSync(script, 0o755);
  return { path: `${bin}:/usr/bin:/bin`, args, env };
}

describe.skipIf(process.platform !== "linux")("--open", () => {
  test("a browser the opener leaves running is adopted but never swept with an agent's family", async () => {
    await using dir = tempDir();
    const bin = join(dir.path, "bin");
    mkdirSync(bin, { recursive: true });
    const browserPid = join(dir.path, "browser.pid");
    // The opener detaches a long-lived "browser" and exits: the daemon, a child subreaper, adopts it.
    writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\necho $! > '${browserPid}.tmp' && mv '${browserPid}.tmp' '${browserPid}'\n`);
    chmodSync(join(bin, "xdg-open"), 0o755);
    const d = await started(["--open"], { SVC_HOME: home(dir), PATH: `${bin}:/usr/bin:/bin`, OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_MODEL: "m" }, dir);
    const pid = Number(await until(() => (existsSync(browserPid) ? readFileSync(browserPid, "utf8").trim() : undefined), 5000, "the opener to run"));
    try {
      await until(() => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(d.proc.pid) || undefined, 5000, "the browser to be adopted");
      // An agent runs, so stopping the daemon sweeps an agent's family.
      expect((await d.fetch("/session", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(200);
      d.proc.kill("SIGTERM");
      await d.proc.exited;
      expect(pidAlive(pid)).toBe(true);
    } finally {
      if (pidAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  test("opens the UI once listening, with no token in its arguments and no secret in its environment", async () => {
    await using dir = tempDir();
    const opener = fakeOpener(dir);
    const token = "tok&en%1";
    await using d = await started(["--open"], { SVC_HOME: home(dir), PATH: opener.path, SVC_SERVER_TOKEN: token, OPENAI_API_KEY: "sk-secret-key", OPENAI_MODEL: "m" }, dir);
    const args = await until(() => (existsSync(opener.args) ? readFileSync(opener.args, "utf8") : undefined), 5000, "the opener to run");
    const opened = args.trimEnd().split("\n");
    expect(opened).toEqual([`${d.url}/`]);
    expect(args).not.toContain("tok");
    const env = readFileSync(opener.env, "utf8");
    expect(env).not.toContain("sk-secret-key");
    expect(env).not.toContain("SVC_SERVER_TOKEN");
    expect(env).toContain("OPENAI_MODEL=m");
    // The note is written after the opener starts: waited for, not raced.
    await until(() => d.stderr().includes("--open: the web UI asks for the token") || undefined, 5000, "the --open note on stderr");
    expect((await d.fetch("/health")).status).toBe(200);
  });

  test("without a token the address is the same, and nothing is said about a token", async () => {
    await using dir = tempDir();
    const opener = fakeOpener(dir);
    await using d = await started(["--open"], { SVC_HOME: home(dir), PATH: opener.path, SVC_SERVER_TOKEN: undefined }, dir);
    const args = await until(() => (existsSync(opener.args) ? readFileSync(opener.args, "utf8") : undefined), 5000, "the opener to run");
    expect(args).toBe(`${d.url}/\n`);
    expect(d.stderr()).not.toContain("--open:");
  });

  test("a missing opener is a warning; the daemon serves on", async () => {
    await using dir = tempDir();
    const empty = join(dir.path, "empty-bin");
    mkdirSync(empty);
    await using d = await started(["--open"], { SVC_HOME: home(dir), PATH: empty, SVC_SERVER_TOKEN: "tok-secret-1" }, dir);
    const warning = await until(() => d.stderr().split("\n").find((l) => l.includes("WARN --open:")), 5000, "the opener warning");
    expect(warning).toMatch(/WARN --open: the browser could not be opened: xdg-open was not found on PATH; open http:\/\/127\.0\.0\.1:\d+\/ yourself/);
    expect(d.stderr()).not.toContain("tok-secret-1");
    expect((await d.fetch("/health")).status).toBe(200);
    d.proc.kill("SIGTERM");
    expect(await d.proc.exited).toBe(0);
  });

  test("an opener that fails is a warning naming its status", async () => {
    await using dir = tempDir();
    const opener = fakeOpener(dir, 3);
    await using d = await started(["--open"], { SVC_HOME: home(dir), PATH: opener.path }, dir);
    const warning = await until(() => d.stderr().split("\n").find((l) => l.includes("--open:")), 5000, "the opener warning");
    expect(warning).toContain("xdg-open exited with status 3");
  });

  test("--open with --no-web opens nothing and says why", async () => {
    await using dir = tempDir();
    const opener = fakeOpener(dir);
    await using d = await started(["--open", "--no-web"], { SVC_HOME: home(dir), PATH: opener.path }, dir);
    expect(await startupLog(d)).toContain("--open is ignored with --no-web");
    // The opener would have run by the time /health answers twice, a listener later.
    await d.fetch("/health");
    await d.fetch("/health");
    expect(existsSync(opener.args)).toBe(false);
  });
});

describe("help", () => {
  test("svc --help lists every command", async () => {
    const { stdout, exitCode } = await runSvc(["--help"]);
    expect(exitCode).toBe(0);
    for (const command of ["svc serve", "svc agents", "svc agents install <name>", "svc trust <dir>", "svc service install | uninstall | status", "svc discover", "svc --acp", "svc --version"]) expect(stdout).toContain(`\n  ${command}`);
  });

  test("svc serve --help shows defaults and the model variables, without jargon", async () => {
    const { stdout, exitCode } = await runSvc(["serve", "--help"]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/--port <n> +port to listen on \(0 = any free port\) \(default: 4170\)/);
    expect(stdout).toMatch(/--log-level <debug\|info\|warn\|error> +what is logged on stderr \(default: info\)/);
    expect(stdout).toContain("--open ");
    for (const p of ENV_PROVIDERS) expect(stdout).toContain(`${p.keyEnv} and ${p.modelEnv}`);
    expect(stdout).toContain("OPENAI_BASE_URL and OPENAI_MODEL");
    expect(stdout).toContain("$SVC_HOME/settings.json");
    expect(stdout).not.toMatch(/journal growth pool|ephemeral|SSE writer|reaper/i);
  });
});
