/**
 * The launcher handshake, `svc serve --ready-json` (sources, or the binary under
 * SVC_TEST_TARGET=binary): exactly one JSON line on stdout once the listener accepts connections,
 * never the token, nothing else on stdout for the daemon's whole life; boot failures print no JSON,
 * one stderr line, exit 2. `--parent-pid` values that cannot be watched fail boot the same way.
 * `--help`/`-h` means help only where a flag is read, never as a flag's value.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { runSvc, svcCommand } from "../helpers/daemon.ts";
import { spawnReady } from "../helpers/launcher.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "tok-ready-3b9e51c0d7a4";

/** What `svc --version` prints for the command under test. */
async function targetVersion(): Promise<string> {
  return (await runSvc(["--version"])).stdout.trim();
}

function expectOneLineBootFailure(result: { stdout: string; stderr: string; exitCode: number | null }, names: RegExp) {
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.split("\n")).toEqual([expect.stringMatching(names), ""]);
  expect(result.stderr).toStartWith("svc: ");
}

describe("--ready-json", () => {
  test("one line of JSON with the documented fields, in order; the URL answers at once", async () => {
    await using ws = tempDir();
    await using links = tempDir();
    // Started through a symlink: the line names the canonical workspace.
    const link = join(links.path, "ws-link");
    symlinkSync(ws.path, link);
    await using d = await spawnReady(["--workspace", link]);
    // Read the line, then connect: no retry, no wait (the line is printed after listen).
    const health = await fetch(`${d.ready.url}/health`);
    expect(health.status).toBe(200);
    const lines = d.stdout().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe("");
    const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["ready", "url", "port", "pid", "version", "workspace", "auth"]);
    expect(parsed).toEqual({
      ready: true,
      url: `http://127.0.0.1:${d.ready.port}`,
      port: d.ready.port,
      pid: d.proc.pid,
      version: await targetVersion(),
      workspace: ws.path,
      auth: "none",
    });
    expect(d.ready.port).toBeGreaterThan(0);
    expect(await d.terminate()).toBe(0);
    // Nothing else ever reached stdout, shutdown included.
    expect(d.stdout()).toBe(`${lines[0]}\n`);
  });

  test("with a token: auth is bearer, the token is nowhere on stdout, the URL answers with it", async () => {
    await using ws = tempDir();
    await using d = await spawnReady(["--workspace", ws.path, "--require-auth"], { env: { SVC_SERVER_TOKEN: TOKEN } });
    expect(d.ready.auth).toBe("bearer");
    expect((await fetch(`${d.ready.url}/health`)).status).toBe(401);
    expect((await fetch(`${d.ready.url}/health`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(await d.terminate()).toBe(0);
    expect(d.stdout()).not.toContain(TOKEN);
    expect(d.stdout().split("\n")).toHaveLength(2);
    expect(d.stderr()).not.toContain(TOKEN);
  });

  test("a token given by flag is not printed either", async () => {
    await using ws = tempDir();
    await using d = await spawnReady(["--workspace", ws.path, "--token", TOKEN]);
    expect(d.ready.auth).toBe("bearer");
    expect(await d.terminate()).toBe(0);
    expect(d.stdout()).not.toContain(TOKEN);
  });

  test("a SIGTERM sent the moment the line is read is a clean stop (exit 0), every time", async () => {
    await using ws = tempDir();
    // The race is between the line reaching the launcher and the signal handlers being installed;
    // a few rounds make a lost race show.
    for (let round = 0; round < 6; round++) {
      await using d = await spawnReady(["--workspace", ws.path]);
      expect(await d.terminate()).toBe(0);
    }
  });

  test("a boot failure prints no JSON: one stderr line, exit 2", async () => {
    await using ws = tempDir();
    expectOneLineBootFailure(await runSvc(["serve", "--ready-json", "--port", "70000", "--workspace", ws.path]), /--port/);
    expectOneLineBootFailure(await runSvc(["serve", "--ready-json", "--port", "0", "--workspace", join(ws.path, "missing")]), /--workspace/);
  });

  test("a port in use fails after the flag was read: still no JSON", async () => {
    await using ws = tempDir();
    using blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("blocker") });
    expectOneLineBootFailure(await runSvc(["serve", "--ready-json", "--port", String(blocker.port), "--workspace", ws.path]), /already in use/);
  });
});

describe("--parent-pid values that cannot be watched fail boot", () => {
  test.each([
    ["not a number", "abc", /--parent-pid: "abc" is not a whole number/],
    ["negative", "-5", /--parent-pid/],
    ["zero", "0", /--parent-pid: 0 is out of range/],
    ["init (1)", "1", /--parent-pid: 1 is out of range/],
    ["a fraction", "12.5", /--parent-pid: "12.5" is not a whole number/],
  ])("%s", async (_what, value, names) => {
    await using ws = tempDir();
    expectOneLineBootFailure(await runSvc(["serve", "--ready-json", "--port", "0", "--workspace", ws.path, "--parent-pid", value]), names);
  });

  test("a pid with no running process", async () => {
    await using ws = tempDir();
    // A process that has exited and been reaped: its pid names nothing now.
    const gone = Bun.spawn([process.execPath, "-e", ""], { stdio: ["ignore", "ignore", "ignore"] });
    await gone.exited;
    const result = await runSvc(["serve", "--ready-json", "--port", "0", "--workspace", ws.path, "--parent-pid", String(gone.pid)]);
    expectOneLineBootFailure(result, new RegExp(`--parent-pid: no running process has pid ${gone.pid}`));
  });

  test("an exited process not yet reaped (a zombie)", async () => {
    await using ws = tempDir();
    // The shell execs `sleep`, which never waits for its background child: killed after the exec
    // (before it, the shell could still reap it), the child stays a zombie.
    const holder = Bun.spawn(["sh", "-c", "sleep 30 & echo $!; exec sleep 60"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    try {
      const reader = holder.stdout.getReader();
      const zombie = Number(new TextDecoder().decode((await reader.read()).value).trim());
      await until(() => readFileSync(`/proc/${holder.pid}/cmdline`, "utf8") === "sleep\x0060\x00", 5000, "the shell to exec sleep");
      process.kill(zombie, "SIGKILL");
      await until(() => /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${zombie}/stat`, "utf8")), 5000, "the zombie");
      const result = await runSvc(["serve", "--ready-json", "--port", "0", "--workspace", ws.path, "--parent-pid", String(zombie)]);
      expectOneLineBootFailure(result, new RegExp(`--parent-pid: no running process has pid ${zombie}`));
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("the daemon's own pid (a shell's $$ that then execs the daemon)", async () => {
    await using ws = tempDir();
    // `exec` replaces the shell, so $$ is the daemon's pid: a watch that could never fire.
    const cmd = ["sh", "-c", 'exec "$@" --parent-pid $$', "sh", ...svcCommand()];
    const result = await runSvc(["serve", "--ready-json", "--port", "0", "--workspace", ws.path], { cmd });
    expectOneLineBootFailure(result, /^svc: --parent-pid: \d+ is this daemon's own pid; pass the launcher's pid \(the process whose end should stop the daemon\)$/);
  });

  test("a live pid is accepted (control)", async () => {
    await using ws = tempDir();
    await using d = await spawnReady(["--workspace", ws.path, "--parent-pid", String(process.pid)]);
    expect(d.ready.pid).toBe(d.proc.pid);
    expect(await d.terminate()).toBe(0);
  });
});

describe("help only where a flag is read", () => {
  test.each([
    ["--workspace --help", ["--workspace", "--help"], /^svc: Option '--workspace' argument is ambiguous\.$/],
    ["--token -h", ["--token", "-h"], /^svc: Option '--token' argument is ambiguous\.$/],
    ["--log-level --help", ["--log-level", "--help"], /^svc: Option '--log-level' argument is ambiguous\.$/],
    ["after --", ["--", "--help"], /^svc: Unexpected argument '--help'/],
  ])("as a value (%s): a boot error naming the flag, no usage, no daemon", async (_what, flags, names) => {
    await using ws = tempDir();
    expectOneLineBootFailure(await runSvc(["serve", "--ready-json", "--port", "0", "--workspace", ws.path, ...flags]), names);
    // Without the `serve` word too.
    expectOneLineBootFailure(await runSvc(["--ready-json", "--port", "0", "--workspace", ws.path, ...flags]), names);
  });

  test.each(["--help", "-h", "--token x -h", "--port 70000 --help", "--bogus -h"])("as a flag (%s): usage on stdout, exit 0", async (flags) => {
    const result = await runSvc(["serve", "--ready-json", ...flags.split(" ")]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toStartWith("usage: svc serve [flags]");
    expect(result.stderr).toBe("");
  });
});
