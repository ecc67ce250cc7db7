/**
 * Updates end to end, with real compiled builds: an old and a new svc (versions 0.1.0-old and
 * 0.2.0-new, both trusting a throwaway release key stamped at build time), served by a loopback
 * release host. A daemon with a live session and a subscribed SDK client is updated in place: the
 * binary is swapped, the new daemon serves the same port (and the old one exits), the client
 * restores the session by itself and the session goes on; the discovery file and the ready line
 * name the new pid, and `--parent-pid` still stops it. A build that exits at once is rolled back
 * (old binary, old daemon serving). A tampered archive and a bad signature are refused with
 * nothing staged. `svc update` checks and applies from the command line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "../../src/client/index.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import type { ReadyLine } from "../helpers/launcher.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { makeSigningKey, releaseHost, type ReleaseFiles } from "../helpers/release-fixture.ts";
import { subscriptionRecorder } from "../helpers/subscription-recorder.ts";
import { type TempDir, tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { NEW, OLD, oldInstall, type UpdateBuilds, updateBuilds } from "../helpers/update-install.ts";
import { platformArchive, signedRelease, signFiles } from "../helpers/update-release.ts";

const TOKEN = "update-e2e-token";
const BROKEN = "0.3.0-broken";
/** Fast backoff for the SDK client, so its restore after the restart is quick. */
const FAST = { backoffBaseMs: 10, backoffMaxMs: 100 };

let builds: UpdateBuilds;
let keys: TempDir;
const releases: Record<string, ReleaseFiles> = {};
let brokenRelease: ReleaseFiles;
let otherKeyRelease: ReleaseFiles;
let host: ReturnType<typeof releaseHost>;

beforeAll(async () => {
  builds = await updateBuilds();
  keys = tempDir("u-keys-");
  const otherKey = await makeSigningKey(keys.path, "other.pem");
  // A build that says its version and exits at once when served.
  const broken = join(keys.path, "svc-broken");
  await Bun.write(broken, `#!/bin/sh\nif [ "$1" = --version ]; then echo ${BROKEN}; exit 0; fi\necho "broken build" >&2\nexit 3\n`);
  chmodSync(broken, 0o755);
  brokenRelease = await signedRelease(broken, BROKEN, builds.key);
  otherKeyRelease = await signFiles(new Map([[platformArchive(), builds.newRelease.get(platformArchive())!]]), NEW, otherKey);
  host = releaseHost(releases);
}, 240_000);

afterAll(async () => {
  await host?.[Symbol.asyncDispose]();
  await keys?.[Symbol.asyncDispose]();
});

/** A fresh install of the old build whose sessions run the fake agent. */
const setup = () => oldInstall(builds, { token: TOKEN, releaseUrl: host.url, env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY } });

/** A session with a subscribed SDK client that has seen one turn. */
async function liveSession(url: string) {
  const c = createClient({ baseUrl: url, token: TOKEN });
  const { sessionId } = await c.createSession({ sessionScope: "thread" });
  const r = subscriptionRecorder();
  const sub = c.subscribe(sessionId, { ...r.handlers, ...FAST });
  await until(() => sub.state === "live", 10_000, "the subscription live");
  const first = await c.prompt(sessionId, "@say before the update");
  await until(() => r.streamedEnd(first.promptId), 10_000, "the first turn");
  return { c, sessionId, r, sub };
}

/** The next turn of the session arrives on the (restored) stream. */
async function turnGoesOn(s: Awaited<ReturnType<typeof liveSession>>, text: string) {
  await until(() => s.sub.state === "resynced" || (s.r.resyncs.length > 0 && s.sub.state === "live"), 30_000, "the client to restore the session");
  const next = await s.c.prompt(s.sessionId, `@say ${text}`);
  await until(() => s.r.streamedEnd(next.promptId), 15_000, "the turn after the restart");
  expect(s.r.errors).toEqual([]);
}


describe("update", () => {
  test("a daemon with a live session is updated to the newer build on the same port; the client restores and the session goes on", async () => {
    releases.latest = builds.newRelease;
    await using s = await setup();
    const session = await liveSession(s.daemon.ready.url);
    try {
      const check = await s.json("GET", "/daemon/update");
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({ currentVersion: OLD, latestVersion: NEW, updateAvailable: true, checkError: null, staged: null, releaseUrl: host.url });

      const prepared = await s.json("POST", "/daemon/update/prepare");
      expect(prepared.status).toBe(200);
      expect(prepared.body.staged.version).toBe(NEW);
      expect(s.version()).toBe(OLD); // staged, not installed

      const restart = await s.json("POST", "/daemon/update/restart");
      expect(restart.status).toBe(200);
      expect(restart.body).toMatchObject({ outcome: "restarted", fromVersion: OLD, toVersion: NEW, fromPid: s.daemon.ready.pid, error: null });
      const newPid: number = restart.body.pid;
      s.started.push(newPid);
      expect(newPid).not.toBe(s.daemon.ready.pid);
      // Its arguments: the port pinned once (the launcher gave --port 0), not appended to.
      const argv = readFileSync(`/proc/${newPid}/cmdline`, "utf8").split("\0");
      expect(argv.filter((arg) => arg === "--port")).toHaveLength(1);
      expect(argv[argv.indexOf("--port") + 1]).toBe(String(s.daemon.ready.port));

      // The old daemon leaves cleanly; the new one printed its own ready line on the same stdout.
      expect(await s.daemon.proc.exited).toBe(0);
      const lines = s.daemon.stdout().trim().split("\n").map((line) => JSON.parse(line) as ReadyLine);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatchObject({ pid: newPid, port: s.daemon.ready.port, url: s.daemon.ready.url, version: NEW });
      expect(s.version()).toBe(NEW);
      expect(s.leftovers()).toEqual([]);

      await turnGoesOn(session, "after the update");

      const discovered = Bun.spawnSync([s.svc, "discover", "--workspace", s.ws.path], { env: { ...process.env, SVC_HOME: s.home.path } });
      expect(JSON.parse(discovered.stdout.toString())).toMatchObject({ pid: newPid, version: NEW, port: s.daemon.ready.port });

      const after = await s.json("GET", "/daemon/update");
      expect(after.body).toMatchObject({ currentVersion: NEW, latestVersion: NEW, updateAvailable: false, staged: null });
      expect(after.body.lastRestart).toMatchObject({ outcome: "restarted", fromVersion: OLD, toVersion: NEW, pid: newPid });
    } finally {
      session.sub.close();
    }
    // The new daemon still watches the launcher given with --parent-pid.
    s.launcher.kill("SIGKILL");
    await expectPidsGone(s.started, 8000, "the updated daemon after its --parent-pid ended");
  }, 120_000);

  test("a new build that exits at once is rolled back: the old binary is back and the old daemon serves on", async () => {
    releases.latest = brokenRelease;
    await using s = await setup();
    const session = await liveSession(s.daemon.ready.url);
    try {
      expect((await s.json("POST", "/daemon/update/prepare")).body.staged.version).toBe(BROKEN);
      const restart = await s.json("POST", "/daemon/update/restart");
      expect(restart.status).toBe(500);
      expect(restart.body).toMatchObject({ code: "update_restart_failed", rolledBack: true });
      expect(restart.body.error).toContain("exited");

      expect(s.daemon.proc.exitCode).toBeNull();
      expect(s.version()).toBe(OLD);
      expect(s.leftovers()).toEqual([]);
      const health = await fetch(`${s.daemon.ready.url}/health`);
      expect(health.status).toBe(200);

      await turnGoesOn(session, "after the rollback");
      const after = await s.json("GET", "/daemon/update");
      expect(after.body).toMatchObject({ currentVersion: OLD, latestVersion: BROKEN });
      expect(after.body.lastRestart).toMatchObject({ outcome: "rolled_back", toVersion: BROKEN, pid: null });
      expect(after.body.staged.version).toBe(BROKEN);
    } finally {
      session.sub.close();
    }
  }, 120_000);

  test("a tampered archive and a bad signature are refused, and nothing is staged", async () => {
    const archive = platformArchive();
    const tampered = new Map(builds.newRelease);
    const bytes = new Uint8Array(tampered.get(archive)!);
    bytes[bytes.length - 100]! ^= 0xff;
    tampered.set(archive, bytes);
    releases.latest = tampered;
    await using s = await setup();
    const requestedBefore = host.requested.length;

    const refused = await s.json("POST", "/daemon/update/prepare");
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe("release_unverified");
    expect(refused.body.error).toContain("does not match the signed SHA256SUMS");
    expect(existsSync(join(s.home.path, "update", "staged"))).toBe(false);

    releases.latest = otherKeyRelease;
    const check = await s.json("GET", "/daemon/update");
    expect(check.body).toMatchObject({ latestVersion: null, updateAvailable: null, staged: null });
    expect(check.body.checkError.code).toBe("release_unverified");
    const unsigned = await s.json("POST", "/daemon/update/prepare");
    expect(unsigned.status).toBe(502);
    expect(unsigned.body.code).toBe("release_unverified");
    expect(host.requested.slice(requestedBefore).filter((path) => path.endsWith(archive))).toHaveLength(1); // only the tampered one was downloaded
    expect(existsSync(join(s.home.path, "update"))).toBe(false); // nothing written at all
    expect((await s.json("POST", "/daemon/update/restart")).body.code).toBe("update_not_staged");
    expect(s.version()).toBe(OLD);
  }, 60_000);

  test("svc update checks, and with --apply installs the newer build over itself", async () => {
    releases.latest = builds.newRelease;
    await using install = tempDir("u-cli-");
    const svc = join(install.path, "svc");
    copyFileSync(builds.oldBinary, svc);
    chmodSync(svc, 0o755);
    // Not spawnSync: the release host runs in this process.
    const run = async (args: string[]) => {
      const proc = Bun.spawn([svc, "update", ...args], { env: { PATH: process.env.PATH!, SVC_RELEASE_URL: host.url }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { exitCode, stdout, stderr };
    };
    const check = await run([]);
    expect(check).toMatchObject({ exitCode: 0, stderr: "" });
    expect(check.stdout).toContain(`${NEW} is available`);

    releases.latest = otherKeyRelease;
    const refused = await run(["--apply"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("not signed by this build's release key");
    expect(readdirSync(install.path)).toEqual(["svc"]);

    releases.latest = builds.newRelease;
    const applied = await run(["--apply"]);
    expect(applied).toMatchObject({ exitCode: 0, stderr: "" });
    expect(Bun.spawnSync([svc, "--version"]).stdout.toString().trim()).toBe(NEW);
    expect(readdirSync(install.path)).toEqual(["svc"]);
    expect((await run([])).stdout).toContain(`svc ${NEW} is the newest release`);
  }, 60_000);
});
