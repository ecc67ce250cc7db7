/**
 * The compiled binary, built by build.ts and run from directories unrelated to the repo: version
 * stamp, embedded assets, signals, boot errors, no autoloaded .env/bunfig.toml, and its size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { version as packageVersion } from "../../package.json";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { REPO_ROOT, runSvc, spawnDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** The release-size budget: Bun's runtime is most of it, so growth here means something got bundled by mistake. */
const MAX_BINARY_BYTES = 110 * 1024 * 1024;
/** How long a signalled daemon may take to exit (its own shutdown deadline is 5 s). */
const EXIT_BOUND_MS = 6000;

let binary: BuiltBinary;
beforeAll(async () => {
  binary = await buildBinary();
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]());

/** `<package version>+<sha cut to 12>` inside a git checkout (build.ts), the bare package version without git. */
function expectedVersion(): string {
  const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: REPO_ROOT, stdout: "pipe", stderr: "ignore" });
  return git.exitCode === 0 ? `${packageVersion}+${git.stdout.toString().trim()}` : packageVersion;
}

describe("compiled binary", () => {
  test("prints its stamped version", async () => {
    await using cwd = tempDir();
    const { stdout, exitCode } = await runSvc(["--version"], { cmd: [binary.path], cwd: cwd.path });
    expect(exitCode).toBe(0);
    expect(stdout).toBe(`${expectedVersion()}\n`);
  });

  test("serves health, the web UI, docs and OpenAPI from its embedded assets", async () => {
    await using cwd = tempDir();
    await using ws = tempDir("svc-ws-");
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: [binary.path], cwd: cwd.path });
    const version = expectedVersion();

    const health = await d.fetch("/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    const shell = await d.fetch("/");
    expect(shell.status).toBe(200);
    expect(shell.headers.get("content-type")).toContain("text/html");
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await shell.text())?.[1];
    expect(script).toBeDefined();
    expect((await d.fetch(script!)).headers.get("content-type")).toStartWith("text/javascript");

    const docs = await d.fetch("/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toContain("text/html");
    expect(await docs.text()).toBe(await Bun.file(join(REPO_ROOT, "src/server/assets/docs.html")).text());

    const docsJs = await d.fetch("/docs/docs.js");
    expect(docsJs.status).toBe(200);
    expect(docsJs.headers.get("content-type")).toContain("text/javascript");
    expect(await docsJs.text()).toBe(await Bun.file(join(REPO_ROOT, "src/server/assets/docs.js")).text());

    const openapi = await d.fetch("/openapi.json");
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { info: { version: string } }).info.version).toBe(version);
  });

  test("--no-web turns GET / into a JSON 404", async () => {
    await using cwd = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", cwd.path, "--no-web"], { cmd: [binary.path], cwd: cwd.path });
    const res = await d.fetch("/");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toMatchObject({ error: expect.any(String) });
  });

  test.each(["SIGTERM", "SIGINT"] as const)("exits 0 promptly on %s", async (signal) => {
    await using cwd = tempDir();
    await using d = await spawnDaemon(["--port", "0", "--workspace", cwd.path], { cmd: [binary.path], cwd: cwd.path });
    expect((await d.fetch("/health")).status).toBe(200);
    d.proc.kill(signal);
    await until(() => d.proc.exitCode !== null || d.proc.signalCode !== null, EXIT_BOUND_MS, `exit after ${signal}`);
    expect(d.proc.signalCode).toBeNull();
    expect(d.proc.exitCode).toBe(0);
  });

  test("a boot error exits 2 with one line on stderr", async () => {
    await using cwd = tempDir();
    const { stdout, stderr, exitCode } = await runSvc(["--port", "abc"], { cmd: [binary.path], cwd: cwd.path });
    expect(exitCode).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toContain("--port");
  });

  test("ignores .env and bunfig.toml in the directory it runs from", async () => {
    await using cwd = tempDir();
    await Bun.write(join(cwd.path, ".env"), "SVC_SERVER_TOKEN=from-dotenv\n");
    await Bun.write(join(cwd.path, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
    await Bun.write(join(cwd.path, "preload.ts"), 'require("node:fs").writeFileSync(require("node:path").join(process.cwd(), "preloaded"), "");\n');
    await using d = await spawnDaemon(["--port", "0", "--workspace", cwd.path], { cmd: [binary.path], cwd: cwd.path });
    // A loaded .env would set a token, and /capabilities would answer 401 without it.
    const res = await d.fetch("/capabilities");
    expect(res.status).toBe(200);
    expect(existsSync(join(cwd.path, "preloaded"))).toBe(false);
  });

  test("runs a third-party agent entry (as bun) and loads the ACP SDK chunk on the first session", async () => {
    await using cwd = tempDir();
    await using ws = tempDir("svc-ws-");
    const env = { SVC_CLI_ENTRY: join(REPO_ROOT, "test/fixtures/fake-agent.ts") };
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: [binary.path], cwd: cwd.path, env });
    const created = await d.fetch("/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(created.status).toBe(200);
    const { sessionId, attached } = (await created.json()) as { sessionId: string; attached: boolean };
    expect(attached).toBe(false);
    const prompt = await d.fetch(`/session/${sessionId}/prompt`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ prompt: [{ type: "text", text: "hello" }] }),
    });
    expect(prompt.status).toBe(202);
    expect((await d.fetch(`/session/${sessionId}`, { method: "DELETE" })).status).toBe(204);
  });

  test(`is at most ${MAX_BINARY_BYTES / 1024 / 1024} MiB`, () => {
    const size = statSync(binary.path).size;
    console.log(`compiled binary: ${size} bytes (${(size / 1024 / 1024).toFixed(1)} MiB)`);
    expect(size).toBeLessThanOrEqual(MAX_BINARY_BYTES);
  });

  test("build.ts writes a sha256sum-format checksum beside the binary", async () => {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(binary.path)) hash.update(chunk);
    expect(await Bun.file(`${binary.path}.sha256`).text()).toBe(`${hash.digest("hex")}  svc\n`);
    expect(binary.buildOutput).toContain(`${statSync(binary.path).size} bytes`);
  });

  test("build.ts reports the application's payload (binary − bare runtime) under its 3 MB bound, and what each chunk holds", async () => {
    const payload = /app payload (\d+) bytes \(.*bound 3\.00 MB\): binary .* − bare Bun .* runtime/.exec(binary.buildOutput);
    expect(payload).not.toBeNull();
    expect(Number(payload![1])).toBeGreaterThan(0);
    expect(Number(payload![1])).toBeLessThanOrEqual(3_000_000);
    const manifest = (await Bun.file(`${binary.path}.modules.json`).json()) as { entry: string; chunks: Record<string, string[]> };
    expect(manifest.chunks[manifest.entry]).toContain("src/main.ts");
    // The MCP SDK's default validator is left out (build.ts, withoutAjv); the one its client is given is in.
    const embedded = Object.values(manifest.chunks).flat();
    expect(embedded.filter((module) => /node_modules\/(ajv|ajv-formats|fast-uri)\//.test(module))).toEqual([]);
    expect(embedded.some((module) => module.startsWith("node_modules/@cfworker/json-schema/"))).toBe(true);
    // Elysia's file-type check of uploads is left out too (build.ts, withoutFileType): no route takes one.
    expect(embedded.filter((module) => /node_modules\/(file-type|strtok3|@tokenizer|debug)\//.test(module))).toEqual([]);
  });
});
