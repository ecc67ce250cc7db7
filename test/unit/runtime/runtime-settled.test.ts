/**
 * `settled()`: what a change the agent must be told of waits for. It never starts a child; while a
 * start is in progress it gives that start's channel (an agent starting may have read its settings
 * before the change), and null when nothing is live or starting, or the start failed.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLaunch } from "../../../src/config/config.ts";
import { Logger } from "../../../src/logging/logger.ts";
import { OrphanReaper } from "../../../src/runtime/orphan-reaper.ts";
import { WorkspaceRuntime } from "../../../src/runtime/workspace-runtime.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const FAKE_AGENT = join(import.meta.dir, "..", "..", "fixtures", "fake-agent.ts");
const launch = (entry: string): AgentLaunch => ({ agent: "generic", runtime: "script", modelEndpoint: null, cliEntry: { path: entry, source: "env" }, cliArgs: [], execPath: process.execPath, compiled: false, baseEnv: {} });

function runtimeFor(dir: string, entry: string, reaper: OrphanReaper): WorkspaceRuntime {
  return new WorkspaceRuntime(dir, { launch: launch(entry), initTimeoutMs: 10_000, version: "0.0.0-test", logger: new Logger("error", "text", { write: () => {} }), reaper, secrets: [] });
}

test("no child: null, and none is started", async () => {
  await using dir = tempDir("svc-settled-");
  const reaper = new OrphanReaper();
  const runtime = runtimeFor(dir.path, FAKE_AGENT, reaper);
  try {
    expect(await runtime.settled()).toBeNull();
    expect(runtime.current()).toBeNull();
    expect(runtime.pid).toBeNull();
  } finally {
    await runtime.stop();
    await reaper.close();
  }
});

test("a start in progress: its channel, once it is up; then the live one", async () => {
  await using dir = tempDir("svc-settled-");
  const reaper = new OrphanReaper();
  const runtime = runtimeFor(dir.path, FAKE_AGENT, reaper);
  try {
    const starting = runtime.ensureStarted();
    expect(runtime.current()).toBeNull();
    const settled = await runtime.settled();
    expect(settled).not.toBeNull();
    expect(settled).toBe(await starting);
    expect(await runtime.settled()).toBe(settled);
  } finally {
    await runtime.stop();
    await reaper.close();
  }
});

test("a start that fails: null", async () => {
  await using dir = tempDir("svc-settled-");
  const entry = join(dir.path, "exits.ts");
  writeFileSync(entry, "process.exit(3);\n");
  const reaper = new OrphanReaper();
  const runtime = runtimeFor(dir.path, entry, reaper);
  try {
    const starting = runtime.ensureStarted().catch(() => null);
    expect(await runtime.settled()).toBeNull();
    expect(await starting).toBeNull();
  } finally {
    await runtime.stop();
    await reaper.close();
  }
});
