/**
 * The entry check run before every spawn and by preflight (`runtime/cli-entry.ts`): what is wrong
 * with the entry, where its path came from, and the 503 `cli_entry_missing` it becomes.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLaunch } from "../../../src/config/config.ts";
import { checkCliEntry, cliEntryStatus, MissingCliEntryError } from "../../../src/runtime/cli-entry.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const launch = (overrides: Partial<AgentLaunch>): AgentLaunch => ({ agent: "generic", runtime: "script", modelEndpoint: null, cliEntry: null, cliArgs: ["--acp"], execPath: "/opt/bun/bin/bun", compiled: false, baseEnv: {}, ...overrides });

function thrownBy(fn: () => void): MissingCliEntryError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MissingCliEntryError) return err;
    throw err;
  }
  throw new Error("nothing thrown");
}

describe("cliEntryStatus", () => {
  test("SVC_CLI_ENTRY: a readable file is fine; a missing path or a directory is named, with a hint about SVC_CLI_ENTRY", async () => {
    await using dir = tempDir("svc-entry-");
    const file = join(dir.path, "agent.js");
    writeFileSync(file, "");
    mkdirSync(join(dir.path, "sub"));
    expect(cliEntryStatus(launch({ cliEntry: { path: file, source: "env" } }))).toEqual({ path: file, source: "SVC_CLI_ENTRY", problem: null });
    const missing = cliEntryStatus(launch({ cliEntry: { path: join(dir.path, "gone.js"), source: "env" } }));
    expect(missing).toMatchObject({ source: "SVC_CLI_ENTRY", problem: "not_found", error: expect.stringContaining("SVC_CLI_ENTRY"), hint: expect.stringContaining("SVC_CLI_ENTRY") });
    expect(cliEntryStatus(launch({ cliEntry: { path: join(dir.path, "sub"), source: "env" } }))).toMatchObject({ problem: "not_a_file" });
  });

  test("run from source, the daemon's own script gone: the hint says to restart it or set SVC_CLI_ENTRY", async () => {
    await using dir = tempDir("svc-entry-");
    const status = cliEntryStatus(launch({ cliEntry: { path: join(dir.path, "main.ts"), source: "argv" } }));
    expect(status).toMatchObject({ source: "process.argv[1]", problem: "not_found", error: expect.stringContaining("daemon's own entry script") });
    expect(status.hint).toContain("restart the daemon");
    expect(status.hint).toContain("SVC_CLI_ENTRY");
  });

  test("the compiled binary's own entry is embedded and never looked for on disk; a configured entry still is", () => {
    expect(cliEntryStatus(launch({ compiled: true, execPath: process.execPath, cliEntry: { path: "/$bunfs/root/svc", source: "argv" } })).problem).toBeNull();
    expect(cliEntryStatus(launch({ compiled: true, execPath: process.execPath, cliEntry: { path: "/$bunfs/root/svc", source: "env" } })).problem).toBe("not_found");
  });

  test("the compiled binary deleted since the daemon started (it is what gets spawned): not_found, naming the binary, hint to restart", async () => {
    await using dir = tempDir("svc-entry-");
    const status = cliEntryStatus(launch({ compiled: true, execPath: join(dir.path, "svc"), cliEntry: { path: "/$bunfs/root/svc", source: "argv" } }));
    expect(status).toMatchObject({ source: "process.argv[1]", problem: "not_found", error: expect.stringContaining("daemon's own binary") });
    expect(status.hint).toContain("restart the daemon");
    const err = thrownBy(() => checkCliEntry(launch({ compiled: true, execPath: join(dir.path, "svc"), cliEntry: { path: "/$bunfs/root/svc", source: "argv" } })));
    expect(err.body()).toMatchObject({ code: "cli_entry_missing", reason: "not_found", retryable: false, error: expect.stringContaining("binary") });
  });

  test("a symbolic link loop is reported as one (ELOOP), not as a missing file", async () => {
    await using dir = tempDir("svc-entry-");
    const loop = join(dir.path, "loop.js");
    symlinkSync(loop, loop);
    const status = cliEntryStatus(launch({ cliEntry: { path: loop, source: "env" } }));
    expect(status).toMatchObject({ problem: "symlink_loop", error: expect.stringContaining("symbolic link loop") });
  });

  test("no entry at all is unresolved", () => {
    expect(cliEntryStatus(launch({ cliEntry: null }))).toMatchObject({ path: null, source: null, problem: "unresolved" });
  });
});

describe("checkCliEntry", () => {
  test("throws 503 cli_entry_missing, not retryable, with the reason and source but never the path", async () => {
    await using dir = tempDir("svc-entry-");
    const path = join(dir.path, "gone.js");
    const err = thrownBy(() => checkCliEntry(launch({ cliEntry: { path, source: "env" } })));
    expect(err.status).toBe(503);
    expect(err.retryAfter).toBeUndefined();
    expect(err.body()).toMatchObject({ code: "cli_entry_missing", errorKind: "missing_binary", reason: "not_found", source: "SVC_CLI_ENTRY", retryable: false });
    expect(JSON.stringify(err.body())).not.toContain(path);
  });

  test("passes for a runnable entry", async () => {
    await using dir = tempDir("svc-entry-");
    const file = join(dir.path, "agent.js");
    writeFileSync(file, "");
    expect(() => checkCliEntry(launch({ cliEntry: { path: file, source: "env" } }))).not.toThrow();
  });
});
