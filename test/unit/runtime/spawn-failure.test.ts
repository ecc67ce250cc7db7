/**
 * A spawn that fails for a missing file (ENOENT: the runtime or binary to run is gone, or the entry
 * vanished between the check and the spawn) answers 503 `cli_entry_missing`, never a 500.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLaunch } from "../../../src/config/config.ts";
import { Logger } from "../../../src/logging/logger.ts";
import { MissingCliEntryError, spawnFailure } from "../../../src/runtime/cli-entry.ts";
import { OrphanReaper } from "../../../src/runtime/orphan-reaper.ts";
import { WorkspaceRuntime } from "../../../src/runtime/workspace-runtime.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const launch = (overrides: Partial<AgentLaunch>): AgentLaunch => ({ agent: "generic", runtime: "script", modelEndpoint: null, cliEntry: null, cliArgs: [], execPath: process.execPath, compiled: false, baseEnv: {}, ...overrides });

describe("spawnFailure", () => {
  test("ENOENT is cli_entry_missing (not_found, not retryable); any other error is passed on", () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, posix_spawn"), { code: "ENOENT" });
    const mapped = spawnFailure(launch({ compiled: true, cliEntry: { path: "/$bunfs/root/svc", source: "argv" } }), enoent);
    expect(mapped).toBeInstanceOf(MissingCliEntryError);
    expect((mapped as MissingCliEntryError).body()).toMatchObject({ code: "cli_entry_missing", reason: "not_found", retryable: false, error: expect.stringContaining("binary") });
    const other = Object.assign(new Error("EMFILE"), { code: "EMFILE" });
    expect(spawnFailure(launch({}), other)).toBe(other);
  });

  test("a runtime whose program to spawn is gone answers cli_entry_missing and records it for preflight", async () => {
    await using dir = tempDir("svc-spawn-");
    const entry = join(dir.path, "agent.js");
    writeFileSync(entry, "");
    const reaper = new OrphanReaper();
    const runtime = new WorkspaceRuntime(dir.path, {
      launch: launch({ execPath: join(dir.path, "gone-bun"), cliEntry: { path: entry, source: "env" } }),
      initTimeoutMs: 5000,
      version: "0.0.0-test",
      logger: new Logger("error", "text", { write: () => {} }),
      reaper,
      secrets: [],
    });
    try {
      const err = await runtime.ensureStarted().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MissingCliEntryError);
      expect(runtime.lastStartFailure).toMatchObject({ code: "cli_entry_missing" });
    } finally {
      await runtime.stop();
      await reaper.close();
    }
  });
});
