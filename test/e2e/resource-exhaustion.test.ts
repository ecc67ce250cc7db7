/**
 * A daemon out of file descriptors (run under `ulimit -n 64`, its table then filled with idle
 * connections) answers `POST /session`, which must spawn an agent, with 503 `resource_exhausted`
 * and Retry-After rather than an anonymous 500; once descriptors are free again the same request
 * succeeds. Runs `svc` from source as a child, since the limit is per process (Linux: it watches
 * the daemon's descriptor table in /proc).
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { MAIN_TS, spawnDaemon } from "../helpers/daemon.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { connect, requestOn, type KeepAliveSocket } from "../helpers/keep-alive-socket.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** The daemon's descriptor limit: a little over what it needs to boot and serve. */
const FD_LIMIT = 64;
/** Descriptors left free: fewer than an agent's stdio pipes need. */
const FREE_FDS = 2;
const CREATE = JSON.stringify({ sessionScope: "thread" });

test("POST /session without free descriptors is 503 resource_exhausted, then succeeds once they are free", async () => {
  await using ws = tempDir();
  await using home = tempDir();
  await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], {
    cmd: ["/bin/sh", "-c", `ulimit -n ${FD_LIMIT} && exec "$0" "$@"`, process.execPath, MAIN_TS],
    cwd: ws.path,
    env: { SVC_HOME: home.path, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY },
  });
  const port = Number(new URL(d.url).port);
  const client = await connect(port);
  const idle: KeepAliveSocket[] = [];
  try {
    // Idle connections take all but FREE_FDS descriptors: enough for the daemon to read the
    // request (a full table stalls Bun's event loop on accept instead), too few to start an agent.
    const fds = () => readdirSync(`/proc/${d.proc.pid}/fd`).length;
    // Accepted, and counted below; a route of the app, so the app is built (its modules read) before the table fills.
    expect((await requestOn(client, port, "GET", "/session/00000000-0000-4000-8000-000000000000/status")).status).toBe(404);
    const toOpen = FD_LIMIT - FREE_FDS - fds();
    for (let i = 0; i < toOpen; i++) idle.push(await connect(port));
    await until(() => fds() >= FD_LIMIT - FREE_FDS, 10_000, "the daemon to accept the idle connections");
    const starved = await requestOn(client, port, "POST", "/session", CREATE);
    expect(starved).toEqual({ status: 503, retryAfter: "5", body: { error: expect.stringMatching(/out of system resources/), code: "resource_exhausted" } });
  } finally {
    for (const conn of idle) conn.socket.end();
  }
  const created = await until(
    async () => {
      const r = await requestOn(client, port, "POST", "/session", CREATE);
      return r.status === 200 ? r : null;
    },
    15_000,
    "a session once descriptors are free",
  );
  expect(created.body.sessionId).toEqual(expect.any(String));
  client.socket.end();
  // A polite stop, so the daemon takes its agent down with it.
  d.proc.kill("SIGTERM");
  await d.proc.exited;
}, 60_000);
