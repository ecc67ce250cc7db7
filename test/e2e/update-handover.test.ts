/**
 * The restart into an update against what can go wrong around it, with real compiled builds (old
 * 0.1.0-old, new 0.2.0-new, trusting a throwaway release key) and stand-in builds (shell scripts
 * that answer `--version`):
 *  - a process that grabs the port during the handover gets no token and does not pass for the new
 *    daemon: the restart is rolled back, and the old daemon, finding its port taken, says so and
 *    binds it again once it is free;
 *  - a shutdown (SIGTERM, `--parent-pid`) while the new build is starting puts the old binary back
 *    and kills the new daemon;
 *  - an older signed release is refused unless asked for, and the running version clears a stage;
 *  - prepare answers from what it did, not from a second look at the release location;
 *  - under a service manager the binary is swapped and the daemon exits for the manager to restart it;
 *  - `svc update --apply` run from source does not replace the runtime running it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { releaseHost, type ReleaseFiles } from "../helpers/release-fixture.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { NEW, OLD, oldInstall, type UpdateBuilds, updateBuilds } from "../helpers/update-install.ts";
import { signedRelease } from "../helpers/update-release.ts";

const TOKEN = "update-handover-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

let builds: UpdateBuilds;
const releases: Record<string, ReleaseFiles> = {};
let host: ReturnType<typeof releaseHost>;

/** A signed release of a stand-in build that answers `--version` with `version` and runs `body` when served. */
async function scriptRelease(version: string, body = "exit 3"): Promise<ReleaseFiles> {
  const path = join(builds.dir, `svc-${version}`);
  await Bun.write(path, `#!/bin/sh\nif [ "$1" = --version ]; then echo ${version}; exit 0; fi\n${body}\n`);
  chmodSync(path, 0o755);
  return signedRelease(path, version, builds.key);
}

beforeAll(async () => {
  builds = await updateBuilds();
  host = releaseHost(releases);
}, 240_000);

afterAll(async () => {
  await host?.[Symbol.asyncDispose]();
});

/** A fresh install of the old build (its release location this file's host unless `releaseUrl`). */
const setup = (options: { env?: Record<string, string | undefined>; releaseUrl?: string } = {}) =>
  oldInstall(builds, { token: TOKEN, releaseUrl: options.releaseUrl ?? host.url, env: options.env });

/** Binds `port` the moment it is free and answers every request 200 `{"status":"ok"}`, noting the Authorization it got. */
function squatter(port: number) {
  const authorizations: (string | null)[] = [];
  let server: ReturnType<typeof Bun.serve> | null = null;
  let stopped = false;
  const grabbing = (async () => {
    while (!stopped && server === null) {
      try {
        server = Bun.serve({
          hostname: "127.0.0.1",
          port,
          fetch(request) {
            authorizations.push(request.headers.get("authorization"));
            return Response.json({ status: "ok" });
          },
        });
      } catch {
        await Bun.sleep(1);
      }
    }
  })();
  return {
    authorizations,
    bound: () => server !== null,
    async stop() {
      stopped = true;
      await grabbing;
      server?.stop(true);
    },
  };
}

describe("update handover", () => {
  test("a process that grabs the port during the handover gets no token and is not taken for the new daemon; the old daemon says its port is taken and binds it again once free", async () => {
    releases.latest = builds.newRelease;
    await using s = await setup();
    expect((await s.json("POST", "/daemon/update/prepare")).body.staged.version).toBe(NEW);
    const squat = squatter(s.daemon.ready.port);
    try {
      const restart = await s.json("POST", "/daemon/update/restart");
      expect(squat.bound()).toBe(true);
      expect(squat.authorizations.length).toBeGreaterThan(0);
      expect(squat.authorizations.every((a) => a === null)).toBe(true);
      expect(restart.status).toBe(500);
      expect(restart.body).toMatchObject({ code: "update_restart_failed", rolledBack: true });
      expect(restart.body.error).toContain("another process answered on the port");
      expect(restart.body.error).toContain(`port ${s.daemon.ready.port} cannot be bound again`);
      expect(s.version()).toBe(OLD);
      expect(s.leftovers()).toEqual([]);
      expect(s.daemon.proc.exitCode).toBeNull();
      const record = JSON.parse(readFileSync(join(s.home.path, "update", "last-restart.json"), "utf8"));
      expect(record).toMatchObject({ outcome: "rolled_back", toVersion: NEW, pid: null });
      expect(record.error).toContain("cannot be bound again");
    } finally {
      await squat.stop();
    }
    // The port is free again: the old daemon takes it back and serves.
    const back = await until(async () => {
      const res = await fetch(`${s.daemon.ready.url}/daemon/update`, { headers: AUTH }).catch(() => null);
      return res?.status === 200 ? ((await res.json()) as Record<string, any>) : null;
    }, 10_000, "the old daemon serving again");
    expect(back).toMatchObject({ currentVersion: OLD, lastRestart: { outcome: "rolled_back" } });
    expect(s.daemon.proc.exitCode).toBeNull();
  }, 120_000);

  for (const cause of ["SIGTERM", "--parent-pid"] as const) {
    test(`a shutdown (${cause}) while the new build starts kills it and puts the old binary back`, async () => {
      releases.latest = await scriptRelease("0.4.0-slow", 'echo $$ > "$SVC_HOME/slow.pid"\nexec sleep 600');
      await using s = await setup();
      expect((await s.json("POST", "/daemon/update/prepare")).body.staged.version).toBe("0.4.0-slow");
      const restart = s.json("POST", "/daemon/update/restart").catch(() => null);
      const pidFile = join(s.home.path, "slow.pid");
      const slowPid = await until(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) || null : null), 15_000, "the new build to start");
      s.started.push(slowPid);
      expect(s.version()).toBe("0.4.0-slow");
      if (cause === "SIGTERM") s.daemon.proc.kill("SIGTERM");
      else s.launcher.kill("SIGKILL");
      expect(await s.daemon.proc.exited).toBe(0);
      await restart;
      await expectPidsGone([slowPid], 6000, "the new build's daemon");
      expect(s.version()).toBe(OLD);
      expect(s.leftovers()).toEqual([]);
    }, 60_000);
  }

  test("an older signed release is refused unless allowDowngrade; the running version's release clears a stage", async () => {
    releases.latest = await scriptRelease("0.0.9-older");
    await using s = await setup();
    const check = await s.json("GET", "/daemon/update");
    expect(check.body).toMatchObject({ currentVersion: OLD, latestVersion: "0.0.9-older", updateAvailable: false });
    const refused = await s.json("POST", "/daemon/update/prepare");
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("update_downgrade");
    expect(existsSync(join(s.home.path, "update", "staged"))).toBe(false);
    const allowed = await s.json("POST", "/daemon/update/prepare", { allowDowngrade: true });
    expect(allowed.status).toBe(200);
    expect(allowed.body.staged.version).toBe("0.0.9-older");

    releases.latest = await scriptRelease(OLD);
    const same = await s.json("POST", "/daemon/update/prepare");
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ latestVersion: OLD, updateAvailable: false, staged: null });
    expect((await s.json("POST", "/daemon/update/restart")).body.code).toBe("update_not_staged");
  }, 60_000);

  test("prepare answers from what it did: staged, even when the release location fails right after", async () => {
    const release = await scriptRelease("0.5.0-once");
    let sumsServed = 0;
    const once = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const name = new URL(request.url).pathname.split("/").pop()!;
        if (name === "SHA256SUMS" && sumsServed++ > 0) return new Response("gone", { status: 503 });
        const body = release.get(name);
        return body === undefined ? new Response("not found", { status: 404 }) : new Response(body);
      },
    });
    try {
      await using s = await setup({ releaseUrl: `http://127.0.0.1:${once.port}` });
      const prepared = await s.json("POST", "/daemon/update/prepare");
      expect(prepared.status).toBe(200);
      expect(prepared.body).toMatchObject({ latestVersion: "0.5.0-once", updateAvailable: true, checkError: null, staged: { version: "0.5.0-once" } });
    } finally {
      once.stop(true);
    }
  }, 60_000);

  test("under a service manager the binary is swapped and the daemon exits 75 for the manager to restart it", async () => {
    releases.latest = builds.newRelease;
    await using s = await setup({ env: { INVOCATION_ID: "f1-fake-invocation" } });
    expect((await s.json("POST", "/daemon/update/prepare")).body.staged.version).toBe(NEW);
    const restart = await s.json("POST", "/daemon/update/restart");
    expect(restart.status).toBe(200);
    expect(restart.body).toMatchObject({ outcome: "service_restart", fromVersion: OLD, toVersion: NEW, pid: null, error: null });
    expect(await s.daemon.proc.exited).toBe(75);
    expect(s.daemon.stdout().trim().split("\n")).toHaveLength(1); // no new daemon was started
    expect(s.version()).toBe(NEW);
    expect(s.leftovers()).toEqual([]);
    expect(existsSync(join(s.home.path, "update", "staged"))).toBe(false);
  }, 60_000);

  test("svc update --apply from source refuses and leaves the runtime running it alone", async () => {
    releases.latest = builds.newRelease;
    await using dir = tempDir("f1-runtime-");
    const runtime = join(dir.path, "bun");
    copyFileSync(process.execPath, runtime);
    chmodSync(runtime, 0o755);
    const before = readFileSync(runtime);
    const proc = Bun.spawn([runtime, join(REPO_ROOT, "src", "main.ts"), "update", "--apply"], {
      env: { PATH: process.env.PATH!, SVC_RELEASE_URL: host.url },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, exitCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(exitCode).toBe(1);
    expect(stderr).toContain("running from source");
    expect(readdirSync(dir.path)).toEqual(["bun"]);
    expect(readFileSync(runtime).equals(before)).toBe(true);
  }, 60_000);
});
