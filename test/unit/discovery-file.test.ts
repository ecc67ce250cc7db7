/**
 * `runtime/discovery-file.ts` and `runtime/process-identity.ts` on real files and processes: what a
 * lookup trusts (a whole, well-formed record that agrees with its file name and names a running
 * process), what a publish sweeps (stale files and stale temp files of its workspace, nothing else),
 * and that `remove()` deletes only a file that still records its daemon.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoveryDir, liveDaemons, publishDiscovery, workspaceKey, type DiscoveryRecord } from "../../src/runtime/discovery-file.ts";
import { identify, stillRunning } from "../../src/runtime/process-identity.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const WORKSPACE = "/srv/project";
const self = identify(process.pid)!;

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
    mkdirSync(discoveryDir(home.path), { recursive: true });
    const live = fileOf(home.path, process.pid, self.startTime);
    const cases: [string, string][] = [
      ["truncated", JSON.stringify(recordFor(process.pid, self.startTime)).slice(0, 40)],
      ["not a record", JSON.stringify({ ready: true, url: 1 })],
      ["oversized", JSON.stringify({ ...recordFor(process.pid, self.startTime), pad: "x".repeat(20_000) })],
      ["another pid than its name", JSON.stringify(recordFor(1, self.startTime))],
      ["another workspace than its name", JSON.stringify(recordFor(process.pid, self.startTime, "/srv/other"))],
    ];
    for (const [what, text] of cases) {
      writeFileSync(live, text);
      expect({ what, found: liveDaemons(home.path, WORKSPACE) }).toEqual({ what, found: [] });
    }
    // A correct record under a temp name is a write in progress, not a daemon.
    const temp = join(discoveryDir(home.path), `.${workspaceKey(WORKSPACE)}.${process.pid}.${self.startTime}.json.tmp`);
    writeFileSync(temp, JSON.stringify(recordFor(process.pid, self.startTime)));
    writeFileSync(live, "");
    expect(liveDaemons(home.path, WORKSPACE)).toEqual([]);
  });

  test("publish sweeps the workspace's stale files and temp files, and leaves live ones and other workspaces alone", async () => {
    await using home = tempDir();
    mkdirSync(discoveryDir(home.path), { recursive: true });
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
      writeFileSync(fileOf(home.path, sibling.pid, siblingStart), JSON.stringify(siblingRecord));
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
