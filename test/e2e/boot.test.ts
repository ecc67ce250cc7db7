/**
 * `svc serve` as a real process (from source): boot failures exit 2 with one line on stderr,
 * the bound address is printed and answers, signals stop it with exit 0, and the logs carry one
 * line per request and never the token.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { version as packageVersion } from "../../package.json";
import { runSvc, spawnDaemon } from "../helpers/daemon.ts";
import { openHalfOpen } from "../helpers/raw-http.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Far below the daemon's 5 s shutdown deadline: an idle daemon must not need it. */
const PROMPT_EXIT_MS = 2000;
/** The daemon's own shutdown deadline, plus process start-up slack. */
const SHUTDOWN_BOUND_MS = 6000;

const TOKEN = "tok-e2e-9f3a1c7b2d";

function expectOneLineBootFailure(result: { stdout: string; stderr: string; exitCode: number | null }, names: RegExp) {
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBe("");
  const lines = result.stderr.split("\n");
  expect(lines).toHaveLength(2); // one line, then the final newline
  expect(lines[1]).toBe("");
  expect(lines[0]).toStartWith("svc: ");
  expect(lines[0]).toMatch(names);
}

describe("boot failures exit 2 with one line on stderr", () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["a non-numeric port", ["--port", "abc"], {}, /--port/],
    ["a port out of range", ["--port", "70000"], {}, /--port/],
    ["an unknown flag", ["--bogus"], {}, /--bogus/],
    ["a flag missing its value", ["--max-sessions"], {}, /--max-sessions/],
    ["an invalid enum", ["--log-format", "xml"], {}, /--log-format/],
    ["--require-auth without a token", ["--require-auth"], {}, /--require-auth/],
    ["a non-loopback bind without a token", ["--hostname", "0.0.0.0"], {}, /--hostname/],
    ["--allow-origin '*' without a token", ["--allow-origin", "*"], {}, /--allow-origin '\*'/],
    ["a non-canonical --allow-origin", ["--allow-origin", "http://app.example/"], { SVC_SERVER_TOKEN: TOKEN }, /InvalidAllowOriginPatternError/],
    ["an invalid env number", [], { SVC_SERVE_PROMPT_DEADLINE_MS: "soon" }, /SVC_SERVE_PROMPT_DEADLINE_MS/],
    ["an invalid env switch", [], { SVC_SERVE_RATE_LIMIT: "banana" }, /SVC_SERVE_RATE_LIMIT/],
  ];
  test.each(cases)("%s", async (_what, args, env, names) => {
    await using ws = tempDir();
    expectOneLineBootFailure(await runSvc(["--port", "0", "--workspace", ws.path, ...args], { env, cwd: ws.path }), names);
  });

  test("an unknown command", async () => {
    expectOneLineBootFailure(await runSvc(["frobnicate"]), /frobnicate/);
  });

  test("a missing workspace", async () => {
    await using ws = tempDir();
    const missing = join(ws.path, "missing");
    const result = await runSvc(["--port", "0", "--workspace", missing]);
    expectOneLineBootFailure(result, /--workspace/);
    expect(result.stderr).toContain(missing);
  });

  test("a workspace that is a file", async () => {
    await using ws = tempDir();
    const file = join(ws.path, "file");
    writeFileSync(file, "");
    expectOneLineBootFailure(await runSvc(["--port", "0", "--workspace", file]), /--workspace.*not a directory/);
  });

  test("an invalid policy.permissionStrategy in settings.json", async () => {
    await using ws = tempDir();
    const home = join(ws.path, "home");
    mkdirSync(home);
    writeFileSync(join(home, "settings.json"), JSON.stringify({ policy: { permissionStrategy: "loudest" } }));
    expectOneLineBootFailure(await runSvc(["--port", "0", "--workspace", ws.path], { env: { SVC_HOME: home } }), /policy\.permissionStrategy/);
  });

  test("a port already in use (no silent port sharing)", async () => {
    await using ws = tempDir();
    using blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("blocker") });
    const result = await runSvc(["--port", String(blocker.port), "--workspace", ws.path]);
    expectOneLineBootFailure(result, new RegExp(`port ${blocker.port}.*in use`));
    expect(await (await fetch(`http://127.0.0.1:${blocker.port}/`)).text()).toBe("blocker");
  });

  test("boot errors never print the token", async () => {
    await using ws = tempDir();
    const result = await runSvc(["--port", "x", "--workspace", ws.path, "--token", TOKEN]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
  });
});

describe("a running daemon", () => {
  test("--port 0 prints the bound address, which answers", async () => {
    await using ws = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path]);
    expect(d.stdout()).toMatch(new RegExp(`^svc ${packageVersion.replaceAll(".", "\\.")} listening on http://127\\.0\\.0\\.1:(\\d+) \\(web UI: http://127\\.0\\.0\\.1:\\1/\\)\\n$`));
    const port = Number(new URL(d.url).port);
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(4170);
    const res = await d.fetch("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  test("svc --version prints the package version", async () => {
    const { stdout, stderr, exitCode } = await runSvc(["--version"]);
    expect(exitCode).toBe(0);
    expect(stdout).toBe(`${packageVersion}\n`);
    expect(stderr).toBe("");
  });

  test.each(["SIGTERM", "SIGINT"] as const)("%s exits 0 promptly", async (signal) => {
    await using ws = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path]);
    await d.fetch("/health"); // leaves an idle keep-alive connection behind
    const started = performance.now();
    d.proc.kill(signal);
    expect(await d.proc.exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(PROMPT_EXIT_MS);
    expect(d.proc.signalCode).toBeNull();
    await until(() => d.stderr().includes(`signal=${signal}`), 2000, "the shutdown log line");
  });

  test(
    "SIGTERM with a client stalled mid-request still exits 0 within the shutdown deadline",
    async () => {
      await using ws = tempDir();
      await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path]);
      const port = Number(new URL(d.url).port);
      await using _stalled = await openHalfOpen(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      await d.fetch("/health");
      const started = performance.now();
      d.proc.kill("SIGTERM");
      expect(await d.proc.exited).toBe(0);
      expect(performance.now() - started).toBeLessThan(SHUTDOWN_BOUND_MS);
    },
    SHUTDOWN_BOUND_MS + 5000,
  );

  test("--allow-origin '*' with a token boots, with a warning on stderr", async () => {
    await using ws = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path, "--allow-origin", "*"], { env: { SVC_SERVER_TOKEN: TOKEN } });
    const warning = await until(() => d.stderr().split("\n").find((l) => / WARN .*--allow-origin '\*'/.test(l)), 3000, "the warning");
    expect(warning).not.toContain(TOKEN);
    const res = await d.fetch("/health", { headers: { Origin: "https://anything.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://anything.example");
  });
});

describe("logs", () => {

  test.each<[string, string[], Record<string, string>]>([
    ["the environment", [], { SVC_SERVER_TOKEN: TOKEN }],
    ["--token", ["--token", TOKEN], {}],
  ])("--log-format json: one JSON line per request, never the token (token from %s)", async (_from, extra, env) => {
    await using ws = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path, "--log-format", "json", ...extra], { env });
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const requests: [string, string, RequestInit, number][] = [
      ["GET", "/health", {}, 200],
      ["GET", "/capabilities", { headers: auth }, 200],
      ["GET", "/daemon/status?detail=full", { headers: auth }, 200],
      ["GET", "/capabilities", { headers: { Authorization: `Bearer ${TOKEN}x` } }, 401],
      ["GET", "/capabilities", { headers: { Authorization: `Basic ${btoa(`user:${TOKEN}`)}` } }, 401],
      ["GET", `/nope?token=${TOKEN}&access_token=${TOKEN}`, { headers: auth }, 404],
      ["POST", "/nope", { headers: { ...auth, "Content-Type": "application/json", "X-Token": TOKEN }, body: JSON.stringify({ token: TOKEN }) }, 404],
      ["DELETE", "/capabilities", { headers: auth }, 404],
    ];
    for (const [method, path, init, status] of requests) {
      const res = await d.fetch(path, { ...init, method });
      expect(res.status).toBe(status);
      expect(await res.text()).not.toContain(TOKEN);
    }

    const access = await until(
      () => {
        const lines = d.stderr().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
        const hits = lines.filter((l) => l.msg === "request");
        return hits.length >= requests.length ? { lines, hits } : null;
      },
      3000,
      "one access line per request",
    );
    expect(access.hits).toHaveLength(requests.length);
    for (const line of access.lines) {
      expect(typeof line.time).toBe("string");
      expect(["debug", "info", "warn", "error"]).toContain(line.level as string);
    }
    const seen = access.hits.map((l) => {
      expect(l.ms).toBeNumber();
      expect(l.ms as number).toBeGreaterThanOrEqual(0);
      return [l.method, l.path, l.status];
    });
    expect(seen).toEqual(requests.map(([method, path, , status]) => [method, path.split("?")[0], status]));

    expect(d.stderr()).not.toContain(TOKEN);
    expect(d.stdout()).not.toContain(TOKEN);
  });

  test("text logs never carry the token either", async () => {
    await using ws = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path, "--log-level", "debug"], { env: { SVC_SERVER_TOKEN: TOKEN } });
    await d.fetch("/capabilities", { headers: { Authorization: `Bearer ${TOKEN}` } });
    await d.fetch(`/health?token=${TOKEN}`, { headers: { Authorization: `Bearer wrong-${TOKEN}` } });
    await until(() => d.stderr().split("\n").filter((l) => / (GET) \S+ \d{3} /.test(l)).length >= 2, 3000, "two access lines");
    expect(d.stderr()).not.toContain(TOKEN);
    expect(d.stdout()).not.toContain(TOKEN);
  });
});
