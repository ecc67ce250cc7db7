/**
 * The discovery file and `svc discover` (sources, or the binary under SVC_TEST_TARGET=binary):
 * a live daemon's file (0600 in a 0700 folder, no token) is what `svc discover` prints; it is removed
 * on SIGTERM/SIGINT; a SIGKILLed daemon's file is stale, skipped, and replaced by the next daemon for
 * the workspace; concurrent daemons for one workspace each own their file and never delete each
 * other's; an unusable data dir leaves the daemon serving, with a warning. Only this user's folder
 * and files are trusted: another user's planted record is never answered, a FIFO or a device named
 * like a record stalls nothing, a folder open to others is restricted, a symlinked one refused.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discover, discoveryFolder, spawnReady, type DiscoveryRecord, type ReadyDaemon } from "../helpers/launcher.ts";
import { AS_ROOT, OTHER_UID, otherUsersProcess } from "../helpers/other-user.ts";
import { pidGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "tok-discovery-58c1e0a9f2";

/** A data dir and a workspace of their own, under one temp dir. */
function setUp(root: string) {
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  return { home, workspace, env: { SVC_HOME: home } };
}

/** The discovery files in `home` (names), excluding nothing. */
const filesIn = (home: string) => (existsSync(discoveryFolder(home)) ? readdirSync(discoveryFolder(home)).sort() : []);

/** The record of the one discovery file a daemon wrote. */
function onlyRecord(home: string): { path: string; record: DiscoveryRecord; text: string } {
  const files = filesIn(home);
  expect(files).toHaveLength(1);
  const path = join(discoveryFolder(home), files[0]!);
  const text = readFileSync(path, "utf8");
  return { path, record: JSON.parse(text) as DiscoveryRecord, text };
}

/** The kernel start time of `pid`, as the discovery file records it. */
const startTimeOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
};

describe.concurrent("discovery file", () => {
  test("a live daemon: its file (0600, folder 0700) holds the ready line plus liveness, never the token; svc discover prints it", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    await using d = await spawnReady(["--workspace", workspace], { env: { ...env, SVC_SERVER_TOKEN: TOKEN } });
    const { path, record, text } = onlyRecord(home);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(discoveryFolder(home)).mode & 0o777).toBe(0o700);
    expect(text).not.toContain(TOKEN);
    expect(text.endsWith("\n") && text.indexOf("\n") === text.length - 1).toBe(true);
    expect(record).toEqual({ ...d.ready, startedAt: expect.any(String), pidStartTime: startTimeOf(d.proc.pid) });
    expect(Number.isNaN(Date.parse(record.startedAt))).toBe(false);
    expect(Date.parse(record.startedAt)).toBeLessThanOrEqual(Date.now());

    // By --workspace, and by the current directory.
    const byFlag = await discover(["--workspace", workspace], { env });
    expect(byFlag.exitCode).toBe(0);
    expect(byFlag.stdout).toBe(text);
    expect(byFlag.stderr).toBe("");
    const byCwd = await discover([], { env, cwd: workspace });
    expect(byCwd.record).toEqual(record);
    // Another workspace has no daemon.
    await using other = tempDir();
    const none = await discover(["--workspace", other.path], { env });
    expect(none).toMatchObject({ exitCode: 1, stdout: "" });
    expect(none.stderr).toContain(`no running daemon for ${other.path}`);
    expect(await d.terminate()).toBe(0);
  });

  test.each(["SIGTERM", "SIGINT"] as const)("%s removes the file; svc discover then finds nothing", async (signal) => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    await using d = await spawnReady(["--workspace", workspace], { env });
    expect(filesIn(home)).toHaveLength(1);
    d.proc.kill(signal);
    expect(await d.proc.exited).toBe(0);
    expect(filesIn(home)).toEqual([]);
    expect((await discover(["--workspace", workspace], { env })).exitCode).toBe(1);
  });

  test("SIGKILL leaves a stale file: svc discover skips it, and the next daemon replaces it", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    const killed = await spawnReady(["--workspace", workspace], { env });
    const stale = onlyRecord(home);
    killed.proc.kill("SIGKILL");
    await killed.proc.exited;
    await until(() => pidGone(killed.ready.pid), 5000, "the killed daemon to be gone");
    expect(existsSync(stale.path)).toBe(true);
    expect((await discover(["--workspace", workspace], { env })).exitCode).toBe(1);

    await using next = await spawnReady(["--workspace", workspace], { env });
    expect(existsSync(stale.path)).toBe(false);
    const fresh = onlyRecord(home);
    expect(fresh.record.pid).toBe(next.proc.pid);
    expect((await discover(["--workspace", workspace], { env })).record).toEqual(fresh.record);
    expect(await next.terminate()).toBe(0);
  });

  test("a file whose pid now names another process (PID reuse) is stale too", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    // A daemon's record for the workspace whose pid is live (this test process) but started at another time.
    const first = await spawnReady(["--workspace", workspace], { env });
    const { path, record } = onlyRecord(home);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const wrongStart = String(Number(startTimeOf(process.pid)) + 1);
    const reused = { ...record, pid: process.pid, pidStartTime: wrongStart };
    const forged = join(discoveryFolder(home), `${path.split("/").pop()!.split(".")[0]}.${process.pid}.${wrongStart}.json`);
    writeFileSync(forged, JSON.stringify(reused), { mode: 0o600 });
    // The same file with the right start time is live: the start time is what tells them apart.
    const genuine = join(discoveryFolder(home), `${path.split("/").pop()!.split(".")[0]}.${process.pid}.${startTimeOf(process.pid)}.json`);
    writeFileSync(genuine, JSON.stringify({ ...record, pid: process.pid, pidStartTime: startTimeOf(process.pid) }), { mode: 0o600 });
    expect((await discover(["--workspace", workspace], { env })).record?.pidStartTime).toBe(startTimeOf(process.pid));
    writeFileSync(genuine, "");
    expect((await discover(["--workspace", workspace], { env })).exitCode).toBe(1);

    await using next = await spawnReady(["--workspace", workspace], { env });
    expect(existsSync(forged)).toBe(false);
    expect(existsSync(path)).toBe(false);
    expect((await discover(["--workspace", workspace], { env })).record?.pid).toBe(next.proc.pid);
    expect(await next.terminate()).toBe(0);
  });

  test("concurrent starts for one workspace: each daemon owns its file, discover answers the earliest, one's exit never removes the other's", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    const started = await Promise.all([0, 1, 2].map(() => spawnReady(["--workspace", workspace], { env })));
    const daemons: ReadyDaemon[] = [...started];
    try {
      expect(filesIn(home)).toHaveLength(3);
      for (const name of filesIn(home)) expect(JSON.parse(readFileSync(join(discoveryFolder(home), name), "utf8")).workspace).toBe(workspace);
      const records = filesIn(home).map((name) => JSON.parse(readFileSync(join(discoveryFolder(home), name), "utf8")) as DiscoveryRecord);
      const earliest = [...records].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid)[0]!;
      expect((await discover(["--workspace", workspace], { env })).record).toEqual(earliest);

      // The earliest stops: the others' files stay, and discover moves on to the next.
      const first = daemons.find((d) => d.proc.pid === earliest.pid)!;
      expect(await first.terminate()).toBe(0);
      daemons.splice(daemons.indexOf(first), 1);
      expect(filesIn(home)).toHaveLength(2);
      const next = (await discover(["--workspace", workspace], { env })).record!;
      expect(daemons.map((d) => d.proc.pid)).toContain(next.pid);
      // Every remaining daemon still answers at the URL its file names.
      for (const d of daemons) expect((await fetch(`${d.ready.url}/health`)).status).toBe(200);
      for (const d of daemons) expect(await d.terminate()).toBe(0);
      expect(filesIn(home)).toEqual([]);
    } finally {
      for (const d of daemons) await d[Symbol.asyncDispose]();
    }
  });

  test("an unusable data dir: the daemon warns and serves; discover finds nothing", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    mkdirSync(home);
    // A file where the discovery folder should be.
    writeFileSync(join(home, "daemons"), "not a folder");
    await using d = await spawnReady(["--workspace", workspace], { env });
    expect((await fetch(`${d.ready.url}/health`)).status).toBe(200);
    await until(() => d.stderr().includes("discovery file not written"), 5000, "the warning");
    expect(d.stderr()).toMatch(/WARN discovery file not written/);
    expect(d.stdout().split("\n")).toHaveLength(2);
    expect((await discover(["--workspace", workspace], { env })).exitCode).toBe(1);
    expect(await d.terminate()).toBe(0);
    expect(readFileSync(join(home, "daemons"), "utf8")).toBe("not a folder");
  });
});

/** The path of a record for `pid` in the folder where `like` (a daemon's file) sits: same workspace key. */
const recordPathLike = (like: string, pid: number, startTime: string) => join(discoveryFolder(like.slice(0, like.lastIndexOf("/daemons/"))), `${like.split("/").pop()!.split(".")[0]}.${pid}.${startTime}.json`);

const mkfifo = (path: string) => expect(Bun.spawnSync(["mkfifo", "-m", "600", path]).exitCode).toBe(0);

describe.concurrent("discovery files only this user can have written", () => {
  test.skipIf(!AS_ROOT)("another user's planted record (a live process of theirs, started earlier, another URL) is never what discover answers", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    await using d = await spawnReady(["--workspace", workspace], { env });
    const ours = onlyRecord(home);
    await using other = await otherUsersProcess();
    // What another user could leave in a folder they can write to: a well-formed record that agrees
    // with its name, for a process of theirs that is running, started long before, pointing elsewhere.
    const planted = recordPathLike(ours.path, other.pid, other.startTime);
    writeFileSync(planted, JSON.stringify({ ...ours.record, url: "http://127.0.0.1:1", port: 1, pid: other.pid, pidStartTime: other.startTime, startedAt: "2000-01-01T00:00:00.000Z" }), { mode: 0o600 });
    chownSync(planted, OTHER_UID, OTHER_UID);
    expect((await discover(["--workspace", workspace], { env })).record).toEqual(ours.record);
    // Even a record of ours (the file owned by us) is not answered for a process of another user.
    chownSync(planted, 0, 0);
    expect((await discover(["--workspace", workspace], { env })).record).toEqual(ours.record);
    expect(await d.terminate()).toBe(0);
  });

  test("a FIFO or a symlink to a device named like a live record: discover answers at once with the daemon", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    await using d = await spawnReady(["--workspace", workspace], { env });
    const ours = onlyRecord(home);
    // Named for processes that are running (this test process, a sleeping child), so a lookup opens them.
    const sleeper = Bun.spawn(["sleep", "30"], { stdio: ["ignore", "ignore", "ignore"] });
    try {
      mkfifo(recordPathLike(ours.path, process.pid, startTimeOf(process.pid)));
      symlinkSync("/dev/zero", recordPathLike(ours.path, sleeper.pid, startTimeOf(sleeper.pid)));
      // runSvc kills a discover that hangs (15 s): an exit code of null.
      const found = await discover(["--workspace", workspace], { env });
      expect(found.exitCode).toBe(0);
      expect(found.record).toEqual(ours.record);
    } finally {
      sleeper.kill("SIGKILL");
      await sleeper.exited;
    }
    expect(await d.terminate()).toBe(0);
  });

  test("the daemon's own file replaced by a FIFO: SIGTERM still stops it cleanly, and the FIFO stays", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    await using d = await spawnReady(["--workspace", workspace], { env });
    const { path } = onlyRecord(home);
    unlinkSync(path);
    mkfifo(path);
    expect(await d.terminate()).toBe(0);
    expect(statSync(path).isFIFO()).toBe(true);
  });

  test("a folder of ours open to others: the daemon restricts it to 0700 with a warning, and publishes", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    mkdirSync(discoveryFolder(home), { recursive: true });
    chmodSync(discoveryFolder(home), 0o777);
    await using d = await spawnReady(["--workspace", workspace], { env });
    expect(statSync(discoveryFolder(home)).mode & 0o777).toBe(0o700);
    await until(() => /WARN discovery folder .* had mode 0777; restricted it to 0700/.test(d.stderr()), 5000, "the warning");
    expect((await discover(["--workspace", workspace], { env })).record).toEqual(onlyRecord(home).record);
    expect(await d.terminate()).toBe(0);
  });

  test("a symlinked folder: the daemon serves without a file and writes nothing through the link; discover refuses it", async () => {
    await using dir = tempDir("svc-disc-");
    const { home, workspace, env } = setUp(dir.path);
    const elsewhere = join(dir.path, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(home);
    symlinkSync(elsewhere, discoveryFolder(home));
    await using d = await spawnReady(["--workspace", workspace], { env });
    expect((await fetch(`${d.ready.url}/health`)).status).toBe(200);
    await until(() => d.stderr().includes("discovery file not written"), 5000, "the warning");
    expect(d.stderr()).toMatch(/WARN discovery file not written.*is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
    const none = await discover(["--workspace", workspace], { env });
    expect(none).toMatchObject({ exitCode: 1, stdout: "" });
    expect(none.stderr).toContain(`svc discover: discovery folder ${discoveryFolder(home)} is a symbolic link; not trusting what it holds`);
    expect(await d.terminate()).toBe(0);
  });
});

describe("svc discover arguments", () => {
  test("a bad flag or a missing workspace: one stderr line, exit 2", async () => {
    await using dir = tempDir("svc-disc-");
    for (const args of [["--bogus"], ["--workspace", join(dir.path, "missing")], ["--workspace"]]) {
      const result = await discover(args, { env: { SVC_HOME: dir.path } });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n")).toEqual([expect.stringMatching(/^svc discover: /), ""]);
    }
  });

  test("--help prints usage and exits 0", async () => {
    const result = await discover(["--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("usage: svc discover");
  });

  test("--help or -h as the value of --workspace is not a request for help: exit 2, no usage", async () => {
    await using dir = tempDir("svc-disc-");
    for (const value of ["--help", "-h"]) {
      const result = await discover(["--workspace", value], { env: { SVC_HOME: dir.path } });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`svc discover: Option '--workspace' argument is ambiguous.\n`);
    }
  });
});
