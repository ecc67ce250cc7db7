/** A stopped runtime answers a start with 503 `daemon_shutting_down`, never a plain Error (a 500). */
import { expect, test } from "bun:test";
import { Logger } from "../../../src/logging/logger.ts";
import { OrphanReaper } from "../../../src/runtime/orphan-reaper.ts";
import { ShuttingDownError } from "../../../src/runtime/start-failure.ts";
import { WorkspaceRuntime } from "../../../src/runtime/workspace-runtime.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

test("ensureStarted after stop(): ShuttingDownError (503 daemon_shutting_down, not retryable), nothing spawned, nothing recorded for preflight", async () => {
  await using dir = tempDir("svc-stopped-");
  const reaper = new OrphanReaper();
  const runtime = new WorkspaceRuntime(dir.path, {
    launch: { agent: "generic", runtime: "script", modelEndpoint: null, cliEntry: null, cliArgs: [], execPath: process.execPath, compiled: false, baseEnv: {} },
    initTimeoutMs: 5000,
    version: "0.0.0-test",
    logger: new Logger("error", "text", { write: () => {} }),
    reaper,
    secrets: [],
  });
  try {
    await runtime.stop();
    const err = await runtime.ensureStarted().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ShuttingDownError);
    expect((err as ShuttingDownError).status).toBe(503);
    expect((err as ShuttingDownError).body()).toMatchObject({ code: "daemon_shutting_down", retryable: false });
    expect(runtime.lastStartFailure).toBeNull();
  } finally {
    await reaper.close();
  }
});
