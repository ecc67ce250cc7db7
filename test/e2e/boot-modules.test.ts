/**
 * The module guard: the compiled binary, started as a launcher starts it and polled on `/health`
 * and `/capabilities`, has loaded nothing outside the allow-list (`boot-modules.allow.ts`) once it
 * is idle. A list check, not a timing check: what a daemon holds is read from Bun's module registry
 * (SIGUSR2 at debug level logs it, `src/logging/loaded-modules.ts`) and named through the build's
 * manifest of what each embedded chunk holds (`<binary>.modules.json`, written by build.ts).
 *
 * Under `npm run test:binary` it checks SVC_TEST_BINARY; otherwise it builds the working tree's binary.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MIRROR_FILE } from "../../src/store/registration-mirror.ts";
import { Store } from "../../src/store/store.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { spawnReady, type ReadyDaemon } from "../helpers/launcher.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { testTarget } from "../helpers/test-target.ts";
import { until } from "../helpers/until.ts";
import { admitted, BUILT_CORE, IDLE_DAEMON } from "./boot-modules.allow.ts";

interface Manifest {
  readonly entry: string;
  readonly chunks: Record<string, string[]>;
}

let built: BuiltBinary | null = null;
let binary: string;

beforeAll(async () => {
  const target = testTarget();
  if (target.kind === "binary") binary = target.path;
  else binary = (built = await buildBinary()).path;
}, 60_000);

afterAll(async () => {
  await built?.[Symbol.asyncDispose]();
});

/** CPU time (user + system, in clock ticks) the process has used so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Resolves once the process has used no CPU for `quietMs`: nothing is loading or being built any more. */
async function idle(pid: number, quietMs = 200): Promise<void> {
  let last = cpuTicks(pid);
  let since = Date.now();
  await until(() => {
    const now = cpuTicks(pid);
    if (now !== last) [last, since] = [now, Date.now()];
    return Date.now() - since >= quietMs;
  }, 10_000, "the daemon to go idle");
}

/** What the daemon has loaded, as source paths (through the manifest), after SIGUSR2. */
async function loadedSources(d: ReadyDaemon, manifest: Manifest): Promise<string[]> {
  const before = d.stderr().length;
  d.proc.kill("SIGUSR2");
  const line = await until(() => d.stderr().slice(before).split("\n").find((l) => l.includes('"modules loaded"')), 5000, "the modules report");
  const chunks = (JSON.parse(line) as { modules: string }).modules.split(" ").map((path) => path.slice(path.lastIndexOf("/") + 1));
  // Text imports (the /docs page) are embedded files the metafile does not list: named by their source.
  return [...new Set(chunks.flatMap((chunk) => manifest.chunks[chunk] ?? [TEXT_ASSET.test(chunk) ? `asset:${chunk.slice(0, chunk.lastIndexOf("-"))}` : `unknown chunk ${chunk}`]))].sort();
}

const TEXT_ASSET = /^[a-z]+-[a-z0-9]{8}\.(html|css|js)$/;

async function launch(ws: string, home: string): Promise<ReadyDaemon> {
  const d = await spawnReady(["--workspace", ws, "--log-level", "debug", "--log-format", "json"], { cmd: [binary], env: { SVC_HOME: home } });
  for (let i = 0; i < 3; i++) for (const path of ["/health", "/capabilities"]) expect((await fetch(d.ready.url + path)).status).toBe(200);
  await idle(d.proc.pid);
  return d;
}

test("an idle daemon polled on /health and /capabilities has loaded only its front door (allow-list in boot-modules.allow.ts)", async () => {
  const manifest = JSON.parse(readFileSync(`${binary}.modules.json`, "utf8")) as Manifest;
  await using ws = tempDir("svc-guard-ws-");
  await using home = tempDir("svc-guard-home-");
  await using d = await launch(ws.path, home.path);

  const loaded = await loadedSources(d, manifest);
  expect(loaded).toContain("src/server/front-door.ts"); // the report does name what the daemon runs
  const outside = loaded.filter((module) => !admitted(IDLE_DAEMON, module));
  expect(outside).toEqual([]);
  expect(await d.terminate()).toBe(0);
}, 30_000);

test("once its core is built (a session list, the full status), it holds the core and still no agent, UI bundle or SDK (BUILT_CORE)", async () => {
  const manifest = JSON.parse(readFileSync(`${binary}.modules.json`, "utf8")) as Manifest;
  await using ws = tempDir("svc-guard-ws-");
  await using home = tempDir("svc-guard-home-");
  await using d = await launch(ws.path, home.path);
  const { workspaces } = (await (await fetch(`${d.ready.url}/capabilities`)).json()) as { workspaces: { id: string }[] };
  for (const path of [`/workspaces/${workspaces[0]!.id}/sessions`, "/daemon/status?detail=full"]) expect((await fetch(d.ready.url + path)).status).toBe(200);
  await idle(d.proc.pid);

  const loaded = await loadedSources(d, manifest);
  expect(loaded).toContain("src/sessions/session-manager.ts");
  const outside = loaded.filter((module) => !admitted(IDLE_DAEMON, module) && !admitted(BUILT_CORE, module));
  expect(outside).toEqual([]);
  expect(await d.terminate()).toBe(0);
}, 30_000);

test("with a persistent registration, the idle daemon lists it on /capabilities from its mirror, and still holds only its front door; without the mirror the core answers", async () => {
  const manifest = JSON.parse(readFileSync(`${binary}.modules.json`, "utf8")) as Manifest;
  await using ws = tempDir("svc-guard-ws-");
  await using other = tempDir("svc-guard-other-");
  await using home = tempDir("svc-guard-home-");
  const [primary, registered] = [realpathSync(ws.path), realpathSync(other.path)];
  // Registered as the daemon's store does it, which writes svc.db and the mirror.
  const store = new Store(home.path);
  store.addRegistration(primary, { id: workspaceId(registered), path: registered, displayName: "Other", createdAt: 1 });
  store.close();
  const expected = [
    { id: workspaceId(primary), cwd: primary, primary: true, trusted: false, removable: false },
    { id: workspaceId(registered), cwd: registered, displayName: "Other", primary: false, trusted: false, removable: true },
  ];
  {
    await using d = await launch(primary, home.path);
    expect(((await (await fetch(`${d.ready.url}/capabilities`)).json()) as { workspaces: unknown }).workspaces).toEqual(expected);
    const loaded = await loadedSources(d, manifest);
    expect(loaded.filter((module) => !admitted(IDLE_DAEMON, module))).toEqual([]);
    expect(await d.terminate()).toBe(0);
  }
  // No mirror beside svc.db: only the core can say, so the first /capabilities builds it, and the core writes the mirror again.
  rmSync(join(home.path, MIRROR_FILE));
  {
    await using d = await launch(primary, home.path);
    expect(((await (await fetch(`${d.ready.url}/capabilities`)).json()) as { workspaces: unknown }).workspaces).toEqual(expected);
    expect(await loadedSources(d, manifest)).toContain("src/sessions/session-manager.ts");
    expect(readFileSync(join(home.path, MIRROR_FILE), "utf8")).toContain(registered);
    expect(await d.terminate()).toBe(0);
  }
  // That daemon's store sealed the mirror as it closed svc.db: the next idle daemon answers from it again.
  await using d = await launch(primary, home.path);
  expect(((await (await fetch(`${d.ready.url}/capabilities`)).json()) as { workspaces: unknown }).workspaces).toEqual(expected);
  expect((await loadedSources(d, manifest)).filter((module) => !admitted(IDLE_DAEMON, module))).toEqual([]);
  expect(await d.terminate()).toBe(0);
}, 30_000);

test("an idle daemon started from a shell of 70 variables has had nothing optimized by JSC's DFG compiler (its code would stay resident: ~1.5 MB of idle RSS)", async () => {
  await using ws = tempDir("svc-guard-ws-");
  await using home = tempDir("svc-guard-home-");
  // A controlled environment, the size of a typical interactive shell's, not the test runner's.
  const env: Record<string, string | undefined> = Object.fromEntries(Object.keys(process.env).map((name) => [name, undefined]));
  for (let i = 0; i < 70; i++) env[`SVC_GUARD_FILLER_${i}`] = `value ${i}`;
  Object.assign(env, { PATH: process.env.PATH, SVC_HOME: home.path, BUN_JSC_reportDFGCompileTimes: "true" });
  await using d = await spawnReady(["--workspace", ws.path], { cmd: [binary], env });
  for (let i = 0; i < 20; i++) for (const path of ["/health", "/capabilities"]) expect((await fetch(d.ready.url + path)).status).toBe(200);
  await idle(d.proc.pid);
  expect(d.stderr().split("\n").filter((line) => line.startsWith("Optimized "))).toEqual([]);
  expect(await d.terminate()).toBe(0);
}, 30_000);

test("the built-in agent (svc --acp) started from that shell, having answered initialize and session/new, has had nothing optimized by JSC's DFG compiler either", async () => {
  await using ws = tempDir("svc-guard-ws-");
  await using home = tempDir("svc-guard-home-");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: home.path, SVC_HOME: home.path, OPENAI_API_KEY: "guard", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_MODEL: "guard-model", BUN_JSC_reportDFGCompileTimes: "true" };
  for (let i = 0; i < 70; i++) env[`SVC_GUARD_FILLER_${i}`] = `value ${i}`;
  const agent = Bun.spawn([binary, "--acp"], { cwd: ws.path, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  try {
    const reader = agent.stdout.getReader();
    let buffered = "";
    const call = async (id: number, method: string, params: unknown) => {
      agent.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      await agent.stdin.flush();
      for (;;) {
        const newline = buffered.indexOf("\n");
        if (newline >= 0) {
          const message = JSON.parse(buffered.slice(0, newline)) as { id?: number; result?: unknown };
          buffered = buffered.slice(newline + 1);
          if (message.id === id) return message;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`the agent closed stdout before answering ${method}`);
        buffered += new TextDecoder().decode(value);
      }
    };
    expect((await call(1, "initialize", { protocolVersion: 1, clientCapabilities: {} })).result).toBeDefined();
    expect((await call(2, "session/new", { cwd: ws.path, mcpServers: [] })).result).toBeDefined();
    await idle(agent.pid);
  } finally {
    agent.stdin.end();
    await agent.exited;
  }
  const stderr = await new Response(agent.stderr).text();
  expect(stderr.split("\n").filter((line) => line.startsWith("Optimized "))).toEqual([]);
}, 30_000);
