/**
 * No agent child outlives the daemon: `svc serve` runs as a real process with a fake-agent child;
 * SIGTERM stops it cleanly (exit 0, child gone), and even SIGKILL — which runs no daemon code —
 * leaves nothing behind, because the orphan watcher kills the child's process group. The watcher
 * itself must go too.
 *
 * Nothing the agent started outlives it either: background processes it leaves behind (`@spawn`:
 * in its group, in their own session like a tool, double-forked, deaf to SIGTERM) are gone after
 * DELETE /session, an agent crash, a daemon shutdown and a daemon SIGKILL.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { spawnDaemon, type SpawnedDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { CHILD_GONE_TIMEOUT_MS, childrenOf, expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";

interface Running {
  daemon: SpawnedDaemon;
  agentPid: number;
  sessionId: string;
  /** Every process the daemon started (agent child and orphan watcher). */
  spawned: number[];
}

/** `svc serve` as a child process with one live session on a fake-agent child (files under `dir`). */
async function serveWithSession(dir: string, env: Record<string, string> = {}): Promise<Running> {
  const workspace = join(dir, "ws");
  const logPath = join(dir, "wire.jsonl");
  mkdirSync(workspace);
  const daemon = await spawnDaemon(["--port", "0", "--workspace", workspace, "--session-idle-timeout-ms", "0", "--log-level", "debug"], {
    env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: logPath, ...env },
  });
  try {
    const created = await jsonRequest(daemon.url, "POST", "/session", {});
    expect(created.status).toBe(200);
    // Wait for the agent's last write after session/new (its command list): a child still writing
    // when the daemon stops reading its stdout dies of EPIPE before any stop step could be seen.
    await until(async () => (await jsonRequest(daemon.url, "GET", `/session/${created.body.sessionId}/supported-commands`)).body.availableCommands?.length === 2);
    const wire = await readWireLog(logPath);
    const agentPid = wire.find((e) => e.event === "start")!.pid;
    expect(pidAlive(agentPid)).toBe(true);
    const spawned = childrenOf(daemon.proc.pid);
    expect(spawned).toContain(agentPid);
    // The agent child and the orphan watcher; nothing else.
    expect(spawned).toHaveLength(2);
    return { daemon, agentPid, sessionId: created.body.sessionId, spawned };
  } catch (err) {
    await daemon[Symbol.asyncDispose]();
    throw err;
  }
}

const healthy = async (daemon: SpawnedDaemon) => (await jsonRequest(daemon.url, "GET", "/health")).status === 200;

/** Has the agent leave one background process per mode and returns their pids (from the wire log). */
async function leaveBehind(dir: string, daemon: SpawnedDaemon, sessionId: string, modes: readonly string[], then = ""): Promise<number[]> {
  const prompt = [...modes.map((m) => `@spawn ${m}`), then].filter(Boolean).join("\n");
  expect((await jsonRequest(daemon.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: prompt }] })).status).toBe(202);
  const spawned = await until(async () => {
    const entries = (await readWireLog(join(dir, "wire.jsonl"))).filter((e) => e.event === "spawned");
    return entries.length === modes.length ? entries.map((e) => e.child as number) : null;
  }, 10_000, "the agent's background processes");
  return spawned;
}

// Independent processes, mostly waiting: run side by side (the SIGTERM-ignoring stop takes ~3 s).
describe.concurrent("no process outlives the daemon", () => {
  test("SIGTERM: the daemon exits 0 after stopping its agent child", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, spawned } = await serveWithSession(dir.path);
    await using _ = daemon;
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
    await expectPidsGone([agentPid, ...spawned], 3000, "the daemon's children");
  });

  test("SIGTERM with a child that ignores SIGTERM and stdin EOF: the daemon escalates, then exits 0", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, spawned } = await serveWithSession(dir.path, { FAKE_AGENT_IGNORE_SIGTERM: "1" });
    await using _ = daemon;
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
    await expectPidsGone([agentPid, ...spawned], 3000, "the daemon's children");
    const wire = (await readWireLog(join(dir.path, "wire.jsonl"))).filter((e) => e.pid === agentPid);
    // The child saw both polite steps (and ignored them) before the SIGKILL. On daemon shutdown they
    // are sent together (agent-process.ts), so the child may notice either first.
    expect(wire.filter((e) => e.event === "stdin_closed" || e.event === "signal").map((e) => e.event).sort()).toEqual(["signal", "stdin_closed"]);
  }, 15_000);

  test("SIGKILL: the orphan watcher kills the agent child's group, then exits", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, spawned } = await serveWithSession(dir.path);
    await using _ = daemon;
    daemon.proc.kill("SIGKILL");
    await daemon.proc.exited;
    await expectPidsGone([agentPid, ...spawned], 3000, "the daemon's children");
  });

  test("SIGKILL with a child that ignores SIGTERM and stdin EOF: it is still gone", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, spawned } = await serveWithSession(dir.path, { FAKE_AGENT_IGNORE_SIGTERM: "1" });
    await using _ = daemon;
    daemon.proc.kill("SIGKILL");
    await daemon.proc.exited;
    await expectPidsGone([agentPid, ...spawned], 3000, "the daemon's children");
  });
});

/** Every way a tool process can hang off an agent. */
const ALL_MODES = ["group", "detached", "orphan", "stubborn", "polite"] as const;

/** While the daemon lives, tools get SIGTERM before SIGKILL: the `polite` one logged it. */
async function expectTermFirst(dir: string, politePid: number): Promise<void> {
  expect((await readWireLog(join(dir, "wire.jsonl"))).some((e) => e.event === "tool_term" && e.pid === politePid)).toBe(true);
}

/** At the moment the daemon exited its sweep had already ended them: none is left for the watcher. */
function expectGoneAtExit(pids: readonly number[]): void {
  expect(pids.filter(pidAlive)).toEqual([]);
}

describe.concurrent("nothing the agent started outlives it", () => {
  test("DELETE /session: the agent stops and its group, its detached tools and its orphans are gone", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, sessionId } = await serveWithSession(dir.path);
    await using _ = daemon;
    const left = await leaveBehind(dir.path, daemon, sessionId, ALL_MODES);
    expect((await jsonRequest(daemon.url, "DELETE", `/session/${sessionId}`)).status).toBe(204);
    await expectPidsGone([agentPid, ...left], CHILD_GONE_TIMEOUT_MS, "the agent and what it started");
    await expectTermFirst(dir.path, left[4]!);
    expect(await healthy(daemon)).toBe(true);
  });

  test("agent crash: what it started is gone, and the daemon stays up", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, sessionId } = await serveWithSession(dir.path);
    await using _ = daemon;
    const left = await leaveBehind(dir.path, daemon, sessionId, ALL_MODES, "@crash 3");
    await expectPidsGone([agentPid, ...left], CHILD_GONE_TIMEOUT_MS, "the crashed agent and what it started");
    await expectTermFirst(dir.path, left[4]!);
    expect(await healthy(daemon)).toBe(true);
  });

  // An agent slow to stop (it ignores stdin EOF and SIGTERM) keeps the shutdown busy for the whole
  // stop sequence; its tools still get SIGTERM before the daemon exits, not just the watcher's SIGKILL.
  test("daemon shutdown (SIGTERM): what a slow-stopping agent started gets SIGTERM and is gone before the daemon exits 0", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, sessionId, spawned } = await serveWithSession(dir.path, { FAKE_AGENT_IGNORE_SIGTERM: "1" });
    await using _ = daemon;
    const left = await leaveBehind(dir.path, daemon, sessionId, ALL_MODES);
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
    expectGoneAtExit([agentPid, ...left]);
    await expectPidsGone([agentPid, ...spawned, ...left], 3000, "the daemon's children and what they started");
    await expectTermFirst(dir.path, left[4]!);
  });

  // An agent that stops at stdin EOF leaves its tools to the sweep alone: with the listener closed and
  // the agent gone, the sweep is all that keeps the daemon running until its tools are gone.
  test("daemon shutdown (SIGTERM): what an agent that stops at once started gets SIGTERM and is gone before the daemon exits 0", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, sessionId, spawned } = await serveWithSession(dir.path);
    await using _ = daemon;
    const left = await leaveBehind(dir.path, daemon, sessionId, ALL_MODES);
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
    expectGoneAtExit([agentPid, ...left]);
    await expectPidsGone([agentPid, ...spawned, ...left], 3000, "the daemon's children and what they started");
    await expectTermFirst(dir.path, left[4]!);
  });

  // After a SIGKILL no daemon code runs: the watcher finds the family in /proc, through the roots the
  // daemon registered while the agent ran (the agent itself may die of SIGPIPE before the watcher
  // looks). Wait for the daemon's periodic scan to have registered the tools that left the session.
  test("daemon SIGKILL: the watcher kills the agent's group, the tools in their own sessions and the orphans", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, sessionId, spawned } = await serveWithSession(dir.path);
    await using _ = daemon;
    const left = await leaveBehind(dir.path, daemon, sessionId, ALL_MODES);
    const [, ...ownSessions] = left;
    const watched = () => [...daemon.stderr().matchAll(/watching processes the agent started .*roots=(\S+)/g)].flatMap((m) => m[1]!.split(",").map(Number));
    await until(() => ownSessions.every((pid) => watched().includes(pid)), 10_000, "the daemon to register the agent's tools with the watcher");
    daemon.proc.kill("SIGKILL");
    await daemon.proc.exited;
    await expectPidsGone([agentPid, ...spawned, ...left], 3000, "the daemon's children and what they started");
  });

  // Killed before any periodic scan could register the tools that left the agent's session: the
  // watcher finds them by the family marker in their environment.
  test("daemon SIGKILL right after the agent started its tools: the watcher finds the unregistered ones by their family marker", async () => {
    await using dir = tempDir("svc-cleanup-");
    const { daemon, agentPid, sessionId, spawned } = await serveWithSession(dir.path);
    await using _ = daemon;
    const left = await leaveBehind(dir.path, daemon, sessionId, ALL_MODES);
    daemon.proc.kill("SIGKILL");
    await daemon.proc.exited;
    await expectPidsGone([agentPid, ...spawned, ...left], 3000, "the daemon's children and what they started");
  });
});
