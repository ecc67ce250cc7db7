/**
 * `runtime/discovery-file.ts` and `runtime/process-identity.ts` on real files and processes: what a
 * lookup trusts (a whole, well-formed record that agrees with its file name and names a running
 * process), what a publish sweeps (stale files and stale temp files of its workspace, nothing else),
 * that `remove()` deletes only a file that still records its daemon, and whose folder and files are
 * trusted at all (only this user's: a real 0700 folder, regular 0600 files, processes of this uid).
 * The cross-user cases chown to `nobody` and run a process as `nobody`, so they need root.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoveryDir, liveDaemons as lookUp, publishDiscovery as publishWith, UnsafeDiscoveryFolderError, workspaceKey, type DiscoveryRecord } from "../../src/runtime/discovery-file.ts";
import { identify, isThisProcess, runsAs, stillRunning } from "../../src/runtime/process-identity.ts";
import { AS_ROOT, OTHER_UID, otherUsersProcess } from "../helpers/other-user.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const WORKSPACE = "/srv/project";
const self = identify(process.pid)!;

/** Where a case that expects no warning sends them: any warning fails it. */
const unexpected = (message: string): void => {
  throw new Error(`unexpected warning: ${message}`);
};
const liveDaemons = (home: string, workspace: string, warn = unexpected) => lookUp(home, workspace, warn);
const publishDiscovery = (home: string, record: DiscoveryRecord, warn = unexpected) => publishWith(home, record, warn);
/** A warning sink that keeps what it is given. */
function collector() {
  const messages: string[] = [];
  return { messages, warn: (message: string) => void messages.push(message) };
}
/** The discovery folder as a daemon makes it (0700). */
const makeFolder = (home: string) => mkdirSync(discoveryDir(home), { recursive: true, mode: 0o700 });
/** A record file as a daemon writes it (0600). */
const writeRecord = (path: string, record: DiscoveryRecord | string) => writeFileSync(path, typeof record === "string" ? record : JSON.stringify(record), { mode: 0o600 });

function recordFor(pid: number, pidStartTime: string | null, workspace = WORKSPACE): DiscoveryRecord {
  return { ready: true, url: "http://127.0.0.1:4170", port: 4170, pid, version: "9.9.9", workspace, auth: "none", startedAt: "2026-01-01T00:00:00.000Z", pidStartTime };
}

/** A process that ran and was reaped: its pid names nothing now. */
async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["true"], { stdio: ["ignore", "ignore", "ignore"] });
  await proc.exited;
  return proc.pid;
}

const fileOf = (home: string, pid: number, start: string | null, workspace = WORKSPACE) => join(discoveryDir(home), `${workspaceKey(workspace)}.${pid}.${start ?? "na"}.json`);

describe("process identity", () => {
  test("a live process has a start time; a reaped pid has no identity", async () => {
    expect(self.startTime).toMatch(/^\d+$/);
    expect(stillRunning(self)).toBe(true);
    expect(identify(await deadPid())).toBeNull();
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(identify(bad)).toBeNull();
  });

  test("the same pid with another start time is another process", () => {
    expect(stillRunning({ pid: process.pid, startTime: String(BigInt(self.startTime!) + 1n) })).toBe(false);
  });
});

describe("discovery files", () => {
  test("publish writes one line and a lookup returns it; remove deletes it", async () => {
    await using home = tempDir();
    const record = recordFor(process.pid, self.startTime);
    const published = publishDiscovery(home.path, record);
    expect(published.path).toBe(fileOf(home.path, process.pid, self.startTime));
    expect(readFileSync(published.path, "utf8")).toBe(`${JSON.stringify(record)}\n`);
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([record]);
    expect(liveDaemons(home.path, "/srv/other")).toEqual([]);
    published.remove();
    published.remove();
    expect(readdirSync(discoveryDir(home.path))).toEqual([]);
  });

  test("a lookup skips files it cannot trust", async () => {
    await using home = tempDir();
    makeFolder(home.path);
    const live = fileOf(home.path, process.pid, self.startTime);
    const cases: [string, string][] = [
      ["truncated", JSON.stringify(recordFor(process.pid, self.startTime)).slice(0, 40)],
      ["not a record", JSON.stringify({ ready: true, url: 1 })],
      ["oversized", JSON.stringify({ ...recordFor(process.pid, self.startTime), pad: "x".repeat(20_000) })],
      ["another pid than its name", JSON.stringify(recordFor(1, self.startTime))],
      ["another workspace than its name", JSON.stringify(recordFor(process.pid, self.startTime, "/srv/other"))],
    ];
    for (const [what, text] of cases) {
      writeRecord(live, text);
      expect({ what, found: liveDaemons(home.path, WORKSPACE) }).toEqual({ what, found: [] });
    }
    // A correct record under a temp name is a write in progress, not a daemon.
    const temp = join(discoveryDir(home.path), `.${workspaceKey(WORKSPACE)}.${process.pid}.${self.startTime}.json.tmp`);
    writeRecord(temp, recordFor(process.pid, self.startTime));
    writeRecord(live, "");
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([]);
  });

  test("publish sweeps the workspace's stale files and temp files, and leaves live ones and other workspaces alone", async () => {
    await using home = tempDir();
    makeFolder(home.path);
    const dead = await deadPid();
    const staleFile = fileOf(home.path, dead, "123");
    const staleTemp = join(discoveryDir(home.path), `.${workspaceKey(WORKSPACE)}.${dead}.123.json.tmp`);
    const otherWorkspace = fileOf(home.path, dead, "123", "/srv/other");
    const unrelated = join(discoveryDir(home.path), "notes.txt");
    for (const path of [staleFile, staleTemp, otherWorkspace, unrelated]) writeFileSync(path, "x");
    // A live daemon of the same workspace (here: a child process of this test).
    const sibling = Bun.spawn(["sleep", "30"], { stdio: ["ignore", "ignore", "ignore"] });
    try {
      const siblingStart = identify(sibling.pid)!.startTime;
      const siblingRecord = recordFor(sibling.pid, siblingStart);
      writeRecord(fileOf(home.path, sibling.pid, siblingStart), siblingRecord);
      const mine = { ...recordFor(process.pid, self.startTime), startedAt: "2026-01-01T00:00:01.000Z" };
      publishDiscovery(home.path, mine);
      expect(existsSync(staleFile)).toBe(false);
      expect(existsSync(staleTemp)).toBe(false);
      expect(existsSync(otherWorkspace)).toBe(true);
      expect(existsSync(unrelated)).toBe(true);
      // Both live daemons, earliest started first.
      expect(liveDaemons(home.path, WORKSPACE)).toEqual([siblingRecord, mine]);
    } finally {
      sibling.kill("SIGKILL");
      await sibling.exited;
    }
  });

  test("the published file is 0600 whatever the umask, so lookups trust it", async () => {
    await using home = tempDir();
    const record = recordFor(process.pid, self.startTime);
    const previous = process.umask(0o277);
    try {
      const published = publishDiscovery(home.path, record);
      expect(statSync(published.path).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([record]);
  });

  test("remove() leaves a file that no longer records this daemon", async () => {
    await using home = tempDir();
    const published = publishDiscovery(home.path, recordFor(process.pid, self.startTime));
    const replaced = JSON.stringify({ ...recordFor(process.pid, self.startTime), startedAt: "2030-01-01T00:00:00.000Z" });
    writeFileSync(published.path, replaced);
    published.remove();
    expect(readFileSync(published.path, "utf8")).toBe(replaced);
  });

  test("an unusable data dir throws (the serve command warns and carries on)", async () => {
    await using home = tempDir();
    writeFileSync(join(home.path, "daemons"), "a file");
    expect(() => publishDiscovery(home.path, recordFor(process.pid, self.startTime))).toThrow();
  });
});

describe("process owner and self", () => {
  test("runsAs: this process runs as this uid, not as another; a gone pid runs as nobody", async () => {
    expect(runsAs(process.pid, process.getuid!())).toBe(true);
    expect(runsAs(process.pid, process.getuid!() + 1)).toBe(false);
    expect(runsAs(await deadPid(), process.getuid!())).toBe(false);
  });

  test.skipIf(!AS_ROOT)("runsAs: a process of another user is not ours (as root too, where a signal would reach it)", async () => {
    await using other = await otherUsersProcess();
    expect(runsAs(other.pid, 0)).toBe(false);
    expect(runsAs(other.pid, OTHER_UID)).toBe(true);
  });

  test("isThisProcess: the own pid and the own threads' ids, not a child's pid", async () => {
    expect(isThisProcess(process.pid)).toBe(true);
    const threads = readdirSync("/proc/self/task").map(Number).filter((tid) => tid !== process.pid);
    expect(threads.length).toBeGreaterThan(0);
    for (const tid of threads) expect(isThisProcess(tid)).toBe(true);
    const child = Bun.spawn(["sleep", "30"], { stdio: ["ignore", "ignore", "ignore"] });
    try {
      expect(isThisProcess(child.pid)).toBe(false);
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(isThisProcess(bad)).toBe(false);
  });
});

describe("only this user's folder and files are trusted", () => {
  test("a symlinked folder is refused: a lookup finds nothing and says why; a publish writes nothing through it", async () => {
    await using home = tempDir();
    const elsewhere = join(home.path, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    const record = recordFor(process.pid, self.startTime);
    writeRecord(join(elsewhere, `${workspaceKey(WORKSPACE)}.${process.pid}.${self.startTime}.json`), record);
    symlinkSync(elsewhere, discoveryDir(home.path));
    const seen = collector();
    expect(liveDaemons(home.path, WORKSPACE, seen.warn)).toEqual([]);
    expect(seen.messages).toEqual([expect.stringMatching(/discovery folder .*daemons is a symbolic link; not trusting what it holds/)]);
    const before = readdirSync(elsewhere);
    expect(() => publishDiscovery(home.path, { ...record, startedAt: "2026-02-02T00:00:00.000Z" })).toThrow(UnsafeDiscoveryFolderError);
    expect(readdirSync(elsewhere)).toEqual(before);
  });

  test("a folder of ours open to others is restricted to 0700, with a warning, by a lookup and by a publish", async () => {
    for (const mode of [0o777, 0o755, 0o701]) {
      await using home = tempDir();
      makeFolder(home.path);
      chmodSync(discoveryDir(home.path), mode);
      const record = recordFor(process.pid, self.startTime);
      writeRecord(fileOf(home.path, process.pid, self.startTime), record);
      const seen = collector();
      expect(liveDaemons(home.path, WORKSPACE, seen.warn)).toEqual([record]);
      expect(statSync(discoveryDir(home.path)).mode & 0o777).toBe(0o700);
      expect(seen.messages).toEqual([`discovery folder ${discoveryDir(home.path)} had mode ${mode.toString(8).padStart(4, "0")}; restricted it to 0700`]);

      chmodSync(discoveryDir(home.path), mode);
      const published = collector();
      publishDiscovery(home.path, record, published.warn);
      expect(statSync(discoveryDir(home.path)).mode & 0o777).toBe(0o700);
      expect(published.messages).toHaveLength(1);
    }
  });

  test.skipIf(!AS_ROOT)("a folder owned by another user is refused by a lookup and by a publish", async () => {
    await using home = tempDir();
    makeFolder(home.path);
    const record = recordFor(process.pid, self.startTime);
    writeRecord(fileOf(home.path, process.pid, self.startTime), record);
    chownSync(discoveryDir(home.path), OTHER_UID, OTHER_UID);
    const seen = collector();
    expect(liveDaemons(home.path, WORKSPACE, seen.warn)).toEqual([]);
    expect(seen.messages).toEqual([expect.stringContaining(`is owned by uid ${OTHER_UID}, not by this user (uid 0)`)]);
    expect(() => publishDiscovery(home.path, { ...record, startedAt: "2026-02-02T00:00:00.000Z" })).toThrow(/owned by uid 65534/);
    expect(readdirSync(discoveryDir(home.path))).toHaveLength(1);
  });

  test("a record is read only when it is a regular file, mode 0600", async () => {
    await using home = tempDir();
    makeFolder(home.path);
    const record = recordFor(process.pid, self.startTime);
    const path = fileOf(home.path, process.pid, self.startTime);
    writeRecord(path, record);
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([record]);
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o400, 0o700]) {
      chmodSync(path, mode);
      expect({ mode: mode.toString(8), found: liveDaemons(home.path, WORKSPACE) }).toEqual({ mode: mode.toString(8), found: [] });
    }
    // A symlink named like the record, to a good record of ours elsewhere.
    await using elsewhere = tempDir();
    writeRecord(join(elsewhere.path, "record.json"), record);
    Bun.spawnSync(["rm", path]);
    symlinkSync(join(elsewhere.path, "record.json"), path);
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([]);
  });

  test.skipIf(!AS_ROOT)("a record owned by another user is skipped, and so is one of ours whose pid runs as another user", async () => {
    await using home = tempDir();
    makeFolder(home.path);
    const record = recordFor(process.pid, self.startTime);
    const path = fileOf(home.path, process.pid, self.startTime);
    writeRecord(path, record);
    chownSync(path, OTHER_UID, OTHER_UID);
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([]);
    chownSync(path, 0, 0);
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([record]);

    await using other = await otherUsersProcess();
    const theirs = recordFor(other.pid, other.startTime);
    writeRecord(fileOf(home.path, other.pid, other.startTime), { ...theirs, startedAt: "2000-01-01T00:00:00.000Z" });
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([record]);
  });
});
