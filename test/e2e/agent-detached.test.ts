/**
 * Processes a built-in agent's command detaches end with their session (issue 22, deliverable 5):
 * `svc serve` (the sources, or the binary under `test:binary`) with the built-in agent and the mock
 * model scripting one shell tool call that starts, and outlives in the background,
 * - `setsid sh -c 'sleep 1000'` (its own session; it still carries the command's marker),
 * - `env -i setsid …` (its own session and no marker: its parent is its only link), and
 * - the same behind a double fork (its parent gone at once: the agent adopted it),
 * then keeps running. They are gone after DELETE /session while the agent serves another session,
 * and after a daemon SIGKILL, also when the agent is frozen then and only the orphan watcher can
 * end them.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { approveAsks } from "../helpers/approve-asks.ts";
import { spawnDaemon, type SpawnedDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { childrenOf, expectPidsGone, pidAlive } from "../helpers/pids.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** Each detached process writes its own pid to `<name>.pid`; the command then runs on. */
const SPAWN = [
  "setsid sh -c 'echo $$ > setsid.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &",
  "env -i setsid sh -c 'echo $$ > cleared.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &",
  "env -i setsid sh -c 'sleep 1000 & echo $! > forked.pid' </dev/null >/dev/null 2>&1 &",
  "sleep 1000",
].join("\n");
const NAMES = ["setsid", "cleared", "forked"] as const;

interface Running extends AsyncDisposable {
  readonly d: SpawnedDaemon;
  readonly agentPid: number;
  /** The detached processes, in NAMES order. */
  readonly detached: number[];
  readonly sessionId: string;
}

/** A daemon whose built-in agent runs `sh spawn.sh` in a fresh session, once its detached processes are all up. */
async function runningCommand(): Promise<Running> {
  const stack = new AsyncDisposableStack();
  try {
    const model: MockModel = stack.use(startMockModel());
    const ws: TempDir = stack.use(tempDir("svc-detached-ws-"));
    const home: TempDir = stack.use(tempDir("svc-detached-home-"));
    writeFileSync(join(ws.path, "spawn.sh"), `${SPAWN}\n`);
    // Whatever the test did to the daemon, nothing is left once it is gone (disposed in reverse: after the daemon).
    const started: number[] = [];
    stack.defer(() => expectPidsGone(started, 3000, "the agent and the detached processes").catch(() => {}));
    const d = stack.use(
      await spawnDaemon(["--port", "0", "--workspace", ws.path, "--log-level", "debug"], {
        cwd: ws.path,
        env: { SVC_CLI_ENTRY: undefined, SVC_CLI_ARGS: undefined, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" },
      }),
    );
    const created = await jsonRequest(d.url, "POST", "/session", {});
    expect(created.status).toBe(200);
    const sessionId = created.body.sessionId as string;
    const files = NAMES.map((name) => join(ws.path, `${name}.pid`));
    {
      // The event stream only serves the votes: it is closed before the test kills anything.
      await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
      await using _ = approveAsks(d.url, sessionId, events);
      model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "sh spawn.sh" } }] });
      expect((await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "spawn" }] })).status).toBe(202);
      await until(() => files.every((f) => existsSync(f) && readFileSync(f, "utf8").trim() !== ""), 20_000, "the detached processes to start");
    }
    const detached = files.map((f) => Number(readFileSync(f, "utf8")));
    expect(detached.filter(pidAlive)).toEqual(detached);
    const agentPid = await until(() => childrenOf(d.proc.pid).find((pid) => !readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith("/bin/sh\0")), 5000, "the agent");
    started.push(agentPid, ...detached);
    const moved = stack.move();
    return { d, agentPid, detached, sessionId, [Symbol.asyncDispose]: () => moved.disposeAsync() };
  } catch (err) {
    await stack.disposeAsync();
    throw err;
  }
}

describe("processes a command detached", () => {
  test("are gone after DELETE /session, while the agent serves on", async () => {
    await using r = await runningCommand();
    // A second session keeps the agent running: what ends the processes is their session's close.
    const other = await jsonRequest(r.d.url, "POST", "/session", { sessionScope: "thread" });
    expect(other.status).toBe(200);
    expect(other.body.sessionId).not.toBe(r.sessionId);
    expect((await jsonRequest(r.d.url, "DELETE", `/session/${r.sessionId}`)).status).toBe(204);
    await expectPidsGone(r.detached, 5000, "the detached processes");
    expect(pidAlive(r.agentPid)).toBe(true);
  }, 60_000);

  test("are gone after a daemon SIGKILL", async () => {
    await using r = await runningCommand();
    r.d.proc.kill("SIGKILL");
    await r.d.proc.exited;
    await expectPidsGone([r.agentPid, ...r.detached], 3000, "the agent and the detached processes");
  }, 60_000);

  // With the agent frozen it cannot end its commands when its stdin closes: the orphan watcher alone
  // must find them. The double-forked one is no session leader, carries no marker, and its group and
  // session leader is gone: only its parent (the agent that adopted it) ties it to the family.
  test("are gone after a daemon SIGKILL while the agent is frozen", async () => {
    await using r = await runningCommand();
    process.kill(r.agentPid, "SIGSTOP");
    r.d.proc.kill("SIGKILL");
    await r.d.proc.exited;
    await expectPidsGone([r.agentPid, ...r.detached], 3000, "the agent and the detached processes");
  }, 60_000);
});
