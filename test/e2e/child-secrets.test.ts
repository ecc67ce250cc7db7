/**
 * What an agent child can actually read of the daemon's token. Not only its own environment (see
 * the child-env unit test): a real child tries /proc/<daemon pid>/environ, cmdline and mem (the
 * fake agent's `@peek`), looking for the token, against `svc serve` from source and the compiled
 * binary, with the token given by environment and by `--token`, as root (this machine) and, where
 * root can switch to it, as an ordinary user. A control run against an unshielded process shows the
 * probe would find it. The daemon's helper processes (the orphan watcher, tool probes) get no token
 * either.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { join } from "node:path";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { MAIN_TS, spawnDaemon, type SpawnedDaemon } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { childrenOf } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import type { PeekReport } from "../fixtures/fake-agent/peek.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";

const CAP_SYS_PTRACE = 19n;
const SETPRIV = "/usr/bin/setpriv";
/** `nobody`: an ordinary user for the non-root runs. */
const NOBODY = 65534;

let binary: BuiltBinary;
beforeAll(async () => {
  binary = await buildBinary();
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]());

/** Has the agent of a fresh session run `@peek <target> <needle file>` and returns its report. */
async function peekFromAgent(url: string, headers: Record<string, string>, logPath: string, target: string, needleFile: string): Promise<PeekReport> {
  const created = await jsonRequest(url, "POST", "/session", {}, headers);
  expect(created.status).toBe(200);
  const prompt = { prompt: [{ type: "text", text: `@peek ${target} ${needleFile}` }] };
  expect((await jsonRequest(url, "POST", `/session/${created.body.sessionId}/prompt`, prompt, headers)).status).toBe(202);
  const entry = await until(async () => (await readWireLog(logPath)).find((e) => e.event === "peek"), 20_000, "the agent's peek report");
  return entry.report as PeekReport;
}

interface Shielded {
  readonly daemon: SpawnedDaemon;
  readonly token: string;
  readonly headers: Record<string, string>;
  readonly logPath: string;
  readonly needleFile: string;
}

async function shieldedDaemon(dir: string, cmd: string[] | undefined, delivery: "env" | "flag", extraEnv: Record<string, string> = {}): Promise<Shielded> {
  const token = randomBytes(24).toString("hex");
  const needleFile = join(dir, "needle");
  writeFileSync(needleFile, token);
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  const logPath = join(dir, "wire.jsonl");
  const daemon = await spawnDaemon(["--port", "0", "--workspace", workspace, ...(delivery === "flag" ? ["--token", token] : [])], {
    cmd,
    cwd: dir,
    env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: logPath, ...(delivery === "env" ? { SVC_SERVER_TOKEN: token } : {}), ...extraEnv },
  });
  return { daemon, token, headers: { Authorization: `Bearer ${token}` }, logPath, needleFile };
}

describe.concurrent.each([
  ["source", "env"],
  ["source", "flag"],
  ["binary", "env"],
  ["binary", "flag"],
] as const)("svc serve (%s, token by %s)", (build, delivery) => {
  test("the agent finds no token in the daemon's environ, cmdline or memory", async () => {
    await using dir = tempDir("svc-secrets-");
    const { daemon, headers, logPath, needleFile } = await shieldedDaemon(dir.path, build === "binary" ? [binary.path] : undefined, delivery);
    await using _ = daemon;
    const report = await peekFromAgent(daemon.url, headers, logPath, "parent", needleFile);
    expect(report.target).toBe(daemon.proc.pid);
    expect(report.environ.found).toBe(false);
    expect(report.cmdline).toMatchObject({ readable: true, found: false });
    expect(report.mem).toMatchObject({ readable: false, found: false });
    // What keeps a root child out of the daemon's memory: it cannot hold CAP_SYS_PTRACE.
    if (process.getuid?.() === 0) expect(BigInt(`0x${report.capBnd}`) & (1n << CAP_SYS_PTRACE)).toBe(0n);
  }, 60_000);

  test("the orphan watcher runs with no token in its environment", async () => {
    await using dir = tempDir("svc-secrets-");
    const { daemon, token, headers } = await shieldedDaemon(dir.path, build === "binary" ? [binary.path] : undefined, delivery);
    await using _ = daemon;
    expect((await jsonRequest(daemon.url, "POST", "/session", {}, headers)).status).toBe(200);
    const watcher = await until(() => childrenOf(daemon.proc.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith("/bin/sh\0")), 10_000, "the orphan watcher");
    const environ = readFileSync(`/proc/${watcher}/environ`, "latin1");
    expect(environ).not.toContain(token);
    expect(environ).not.toContain("SVC_SERVER_TOKEN");
  }, 60_000);
});

// The common case: daemon and agent run as the same ordinary user. There, non-dumpability is what
// closes /proc/<pid>/environ and mem (they become root-owned).
/**
 * Root can switch to `nobody`, and `nobody` can read the daemon's script and the fake agent: a
 * checkout under a private directory (`mktemp -d` makes one 0700) is out of its reach, and the run
 * would only show that it cannot start.
 */
const canRunAsNobody =
  process.getuid?.() === 0 &&
  existsSync(SETPRIV) &&
  [MAIN_TS, FAKE_AGENT_ENTRY].every((path) => Bun.spawnSync([SETPRIV, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", "/usr/bin/test", "-r", path]).exitCode === 0);

describe.concurrent.each(["source", "binary"] as const)("svc serve as an ordinary user (%s)", (build) => {
  test.skipIf(!canRunAsNobody)("the agent can open neither the daemon's environ nor its memory", async () => {
    await using dir = tempDir("svc-secrets-");
    chmodSync(dir.path, 0o777);
    const home = join(dir.path, "home");
    mkdirSync(home, { mode: 0o777 });
    chmodSync(home, 0o777);
    if (build === "binary") chmodSync(dirname(binary.path), 0o755);
    const asNobody = [SETPRIV, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--"];
    const cmd = [...asNobody, ...(build === "binary" ? [binary.path] : [process.execPath, MAIN_TS])];
    const env = { SVC_HOME: home, HOME: home, XDG_CACHE_HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home, XDG_STATE_HOME: home };
    const { daemon, headers, logPath, needleFile } = await shieldedDaemon(dir.path, cmd, "env", env);
    await using _ = daemon;
    const report = await peekFromAgent(daemon.url, headers, logPath, "parent", needleFile);
    expect(report.target).toBe(daemon.proc.pid);
    expect(report.environ).toMatchObject({ readable: false, found: false });
    expect(report.cmdline.found).toBe(false);
    expect(report.mem).toMatchObject({ readable: false, found: false });
  }, 60_000);
});

test("svc serve: a tool probe runs with PATH only, no token", async () => {
  await using dir = tempDir("svc-secrets-");
  // Outside the workspace: a program found inside it is never run.
  await using binDir = tempDir("svc-secrets-bin-");
  const bin = join(binDir.path, "bin");
  mkdirSync(bin);
  // A `git` first on PATH that records the environment it was given.
  writeFileSync(join(bin, "git"), `#!/bin/sh\nenv > "${join(bin, "git.env")}"\necho "git version 9.9.9"\n`);
  chmodSync(join(bin, "git"), 0o755);
  const token = randomBytes(24).toString("hex");
  await using daemon = await spawnDaemon(["--port", "0", "--workspace", dir.path], { env: { SVC_SERVER_TOKEN: token, PATH: `${bin}:${process.env.PATH}` } });
  const preflight = await jsonRequest(daemon.url, "GET", "/workspace/preflight", undefined, { Authorization: `Bearer ${token}` });
  expect(preflight.status).toBe(200);
  expect(preflight.body.cells).toContainEqual(expect.objectContaining({ kind: "git", detail: { version: "9.9.9" } }));
  const seen = readFileSync(join(bin, "git.env"), "utf8");
  expect(seen).not.toContain(token);
  expect(seen.split("\n").filter((line) => /^[A-Z_]+=/.test(line) && !/^(PATH|PWD|SHLVL|_)=/.test(line))).toEqual([]);
}, 60_000);

// The probe finds a needle where memory is readable: an in-process daemon applies no shield (only
// `svc serve` does), so its agent can read the test process's memory, which holds the needle.
test("control: the same probe finds the needle in an unshielded parent's memory", async () => {
  await using dir = tempDir("svc-secrets-");
  const needle = randomBytes(24).toString("hex");
  const needleFile = join(dir.path, "needle");
  writeFileSync(needleFile, needle);
  await using d = await fakeAgentDaemon();
  const report = await peekFromAgent(d.url, {}, d.logPath, "parent", needleFile);
  expect(report.target).toBe(process.pid);
  expect(report.mem).toMatchObject({ readable: true, found: true });
  expect(needle.length).toBe(48); // keeps the needle alive in this process's heap until here
}, 60_000);
