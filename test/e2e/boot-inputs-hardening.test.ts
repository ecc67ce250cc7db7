/**
 * Hostile boot inputs and resource exhaustion, against `svc` from source and the compiled binary:
 * settings files that are not plain small files (a FIFO, a device, a 3 GB sparse file) fail boot
 * at once with one line and exit 2, a BOM is fine; tokens that no request could match fail boot
 * without printing them, every accepted character works over HTTP; file routes refuse links that
 * escape; and `/daemon/status` keeps answering when the daemon runs out of file descriptors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, openSync, closeSync, ftruncateSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { MAIN_TS, REPO_ROOT, runSvc, spawnDaemon } from "../helpers/daemon.ts";
import { connect, requestOn, type KeepAliveSocket } from "../helpers/keep-alive-socket.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

let binary: BuiltBinary;
beforeAll(async () => {
  binary = await buildBinary();
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]());

/** The command running `svc`: from source, or the compiled binary. */
const BUILDS: [string, () => string[]][] = [
  ["source", () => [process.execPath, MAIN_TS]],
  ["binary", () => [binary.path]],
];

function expectOneLineBootFailure(result: { stdout: string; stderr: string; exitCode: number | null }, names: RegExp) {
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^svc: [^\n]*\n$/);
  expect(result.stderr).toMatch(names);
}

const MEASURE_RSS = join(REPO_ROOT, "test", "fixtures", "measure-rss.ts");

/** Far above what a daemon failing boot uses, far below reading a 3 GB file into memory. */
const BOOT_FAILURE_MAX_RSS_BYTES = 1024 ** 3;

/**
 * Runs `svc` to completion like `runSvc`, also reporting its peak resident memory. It is started by
 * the small `measure-rss.ts` launcher, not by the test runner, whose own resident memory a child
 * forked from it would count (see the launcher).
 */
async function runMeasured(cmd: string[], args: string[], cwd: string, env: Record<string, string>) {
  await using out = tempDir("svc-rss-");
  const report = join(out.path, "rss.json");
  const proc = Bun.spawn([process.execPath, MEASURE_RSS, report, "15000", ...cmd, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exitCode, maxRss: ((await Bun.file(report).json()) as { maxRss: number }).maxRss };
}

describe.each(BUILDS)("%s: settings.json that is not a small regular file", (_build, cmd) => {
  /** Boots with `$SVC_HOME/settings.json` prepared by `arrange`. */
  async function bootWith(arrange: (file: string) => void) {
    await using dir = tempDir();
    const home = join(dir.path, "home");
    mkdirSync(home);
    const file = join(home, "settings.json");
    arrange(file);
    const result = await runMeasured(cmd(), ["--port", "0", "--workspace", dir.path], dir.path, { SVC_HOME: home });
    expect(result.maxRss).toBeLessThan(BOOT_FAILURE_MAX_RSS_BYTES);
    return { file, result };
  }

  test("a FIFO fails boot instead of waiting for a writer", async () => {
    const { file, result } = await bootWith((file) => expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0));
    expectOneLineBootFailure(result, new RegExp(`settings file ${file} is not a regular file`));
  });

  test("a symlink to /dev/zero fails boot without reading it", async () => {
    const { file, result } = await bootWith((file) => symlinkSync("/dev/zero", file));
    expectOneLineBootFailure(result, new RegExp(`settings file ${file} is not a regular file`));
  });

  test("a 3 GB sparse file fails boot without reading it (peak memory stays far below its size)", async () => {
    const { file, result } = await bootWith((file) => {
      const fd = openSync(file, "w");
      ftruncateSync(fd, 3 * 1024 ** 3);
      closeSync(fd);
    });
    expectOneLineBootFailure(result, new RegExp(`settings file ${file} is larger than 1 MiB`));
  });

  test("a UTF-8 byte order mark boots", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "settings.json"), `\ufeff${JSON.stringify({ policy: { permissionStrategy: "consensus" } })}`);
    await using d = await spawnDaemon(["--port", "0", "--workspace", dir.path], { cmd: cmd(), cwd: dir.path, env: { SVC_HOME: dir.path } });
    expect(((await (await d.fetch("/capabilities")).json()) as { policy: { permission: string } }).policy.permission).toBe("consensus");
  });
});

describe.each(BUILDS)("%s: the bearer token's alphabet", (_build, cmd) => {
  test.each<[string, string]>([
    ["a control character", "tok\x1b[31m-e2e-secret"],
    ["a non-ASCII character", "tok-é2e-secret"],
    ["a space", "tok e2e-secret"],
    ["surrounding white space", " tok-e2e-secret"],
  ])("a token with %s fails boot without printing it", async (_what, token) => {
    await using ws = tempDir();
    const result = await runSvc(["--port", "0", "--workspace", ws.path], { cmd: cmd(), cwd: ws.path, env: { SVC_SERVER_TOKEN: token } });
    expectOneLineBootFailure(result, /the bearer token \(--token or SVC_SERVER_TOKEN\)/);
    expect(result.stderr).not.toContain("e2e-secret");
  });

  test("a token of every visible ASCII character, and one of the longest length, work over HTTP", async () => {
    const every = Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
    for (const token of [every, "z".repeat(4096)]) {
      await using ws = tempDir();
      await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: cmd(), cwd: ws.path, env: { SVC_SERVER_TOKEN: token } });
      expect((await d.fetch("/capabilities", { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await d.fetch("/capabilities", { headers: { Authorization: `Bearer ${token.slice(1)}` } })).status).toBe(401);
    }
  });
});

describe.each(BUILDS)("%s: file routes and links that escape", (_build, cmd) => {
  test("/stat, /file and /list refuse a link out and a link to a link out", async () => {
    await using ws = tempDir("svc-ws-");
    await using outside = tempDir("svc-outside-");
    writeFileSync(join(outside.path, "secret.txt"), "OUTSIDE");
    symlinkSync(join(outside.path, "secret.txt"), join(ws.path, "out"));
    symlinkSync("out", join(ws.path, "to-out"));
    symlinkSync(join(outside.path, "gone"), join(ws.path, "dangling-out"));
    symlinkSync("dangling-out", join(ws.path, "to-dangling-out"));
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: cmd(), cwd: ws.path });
    for (const path of ["out", "to-out", "dangling-out", "to-dangling-out"])
      for (const route of ["/stat", "/file", "/list"]) {
        const res = await d.fetch(`${route}?path=${path}`);
        const text = await res.text();
        expect({ route, path, status: res.status, errorKind: JSON.parse(text).errorKind }).toEqual({ route, path, status: 400, errorKind: "symlink_escape" });
        expect(text).not.toContain(outside.path);
      }
  });
});

describe.each(BUILDS)("%s: /daemon/status without free file descriptors", (_build, cmd) => {
  test(
    "answers 200 with memory unknown and a warning, then recovers",
    async () => {
      await using ws = tempDir();
      // A low descriptor limit, so that a hundred idle connections use up what is left.
      await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: ["/bin/sh", "-c", 'ulimit -n 64 && exec "$0" "$@"', ...cmd()], cwd: ws.path });
      const port = Number(new URL(d.url).port);
      const status = await connect(port);
      const idle: KeepAliveSocket[] = [];
      try {
        expect((await requestOn(status, port, "GET", "/daemon/status")).body.runtime.memory.rssBytes).toBeGreaterThan(0);
        for (let i = 0; i < 100; i++) idle.push(await connect(port));
        const starved = await until(
          async () => {
            for (const detail of ["summary", "full"]) {
              const r = await requestOn(status, port, "GET", `/daemon/status?detail=${detail}`);
              expect(r.status).toBe(200);
              if (r.body.runtime.memory.rssBytes === null) return r.body;
            }
            return null;
          },
          10_000,
          "the daemon to run out of descriptors",
        );
        expect(starved.runtime.memory).toEqual({ rssBytes: null, heapUsedBytes: null });
        expect(starved.issues).toContainEqual(expect.objectContaining({ code: "process_memory_unavailable", severity: "warning" }));
        expect(starved.status).not.toBe("ok");
      } finally {
        for (const conn of idle) conn.socket.end();
      }
      const recovered = await until(
        async () => {
          const r = await requestOn(status, port, "GET", "/daemon/status");
          return r.body.runtime.memory.rssBytes !== null && r.body;
        },
        10_000,
        "the daemon to have descriptors again",
      );
      expect(recovered.issues.map((i: { code: string }) => i.code)).not.toContain("process_memory_unavailable");
      status.socket.end();
    },
    30_000,
  );
});
