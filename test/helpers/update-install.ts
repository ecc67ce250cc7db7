/**
 * What both update suites (`test/e2e/update.test.ts`, `update-handover.test.ts`) start from:
 *  - `updateBuilds()`: an old (0.1.0-old) and a new (0.2.0-new) compiled svc, both trusting one
 *    throwaway release key, and the new one's signed release. Compiled once per test process (the
 *    suites share it; two builds of ~110 MB each are the slowest part of either), under the test
 *    process's temp root (`test/setup.ts`), which is removed after the last file.
 *  - `oldInstall()`: a fresh install of the old build serving with a token, its data dir and
 *    workspace, and a stand-in launcher for `--parent-pid`; disposing it kills what it started.
 */
import { chmodSync, copyFileSync, mkdtempSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnReady } from "./launcher.ts";
import { expectPidsGone, pidAlive } from "./pids.ts";
import { makeSigningKey, type ReleaseFiles } from "./release-fixture.ts";
import { tempDir } from "./temp-dir.ts";
import { buildSvc, publicKeyOfFile, signedRelease } from "./update-release.ts";

export const OLD = "0.1.0-old";
export const NEW = "0.2.0-new";

export interface UpdateBuilds {
  /** Where the builds and the key are; a suite may put its own stand-in builds there. */
  readonly dir: string;
  /** The PEM signing key both builds trust. */
  readonly key: string;
  readonly oldBinary: string;
  readonly newBinary: string;
  readonly newRelease: ReleaseFiles;
}

let shared: Promise<UpdateBuilds> | null = null;

/** The old and new builds (compiled on first call, one at a time: the machine is shared). */
export function updateBuilds(): Promise<UpdateBuilds> {
  shared ??= (async () => {
    // SVC_HOME is `<root>/svc-home` (test/setup.ts).
    const dir = mkdtempSync(join(dirname(process.env.SVC_HOME!), "update-builds-"));
    const key = await makeSigningKey(dir);
    const publicKey = await publicKeyOfFile(key);
    const [oldBinary, newBinary] = [join(dir, "svc-old"), join(dir, "svc-new")];
    await buildSvc(oldBinary, publicKey, OLD);
    await buildSvc(newBinary, publicKey, NEW);
    return { dir, key, oldBinary, newBinary, newRelease: await signedRelease(newBinary, NEW, key) };
  })();
  return shared;
}

/** Service-manager variables cleared: the restart is the daemon's own unless a test sets one. */
export const NO_MANAGER = { INVOCATION_ID: undefined, NOTIFY_SOCKET: undefined, XPC_SERVICE_NAME: undefined };

/** A fresh install of the old build, serving with `token` from its release location `releaseUrl`. */
export async function oldInstall(builds: UpdateBuilds, options: { token: string; releaseUrl: string; env?: Record<string, string | undefined> }) {
  const auth = { Authorization: `Bearer ${options.token}` };
  const install = tempDir("svc-update-install-");
  const home = tempDir("svc-update-home-");
  const ws = tempDir("svc-update-ws-");
  const svc = join(install.path, "svc");
  copyFileSync(builds.oldBinary, svc);
  chmodSync(svc, 0o755);
  const launcher = Bun.spawn(["sleep", "600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const env = { SVC_HOME: home.path, SVC_SERVER_TOKEN: options.token, SVC_RELEASE_URL: options.releaseUrl, ...NO_MANAGER, ...options.env };
  const daemon = await spawnReady(["--workspace", ws.path, "--parent-pid", String(launcher.pid)], { cmd: [svc], env });
  /** Pids this install must see gone at the end (an updated daemon is not the test's child). */
  const started: number[] = [daemon.ready.pid];
  const json = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${daemon.ready.url}${path}`, {
      method,
      headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return {
    install,
    home,
    ws,
    svc,
    launcher,
    daemon,
    env,
    started,
    json,
    version: () => Bun.spawnSync([svc, "--version"]).stdout.toString().trim(),
    /** What the install folder holds besides the binary (a stage, a backup: none once an update settled). */
    leftovers: () => readdirSync(install.path).filter((name) => name !== "svc"),
    async [Symbol.asyncDispose]() {
      for (const pid of started) if (pidAlive(pid)) process.kill(pid, "SIGKILL");
      launcher.kill("SIGKILL");
      await launcher.exited;
      await daemon[Symbol.asyncDispose]();
      await expectPidsGone(started, 6000, "daemons");
      for (const dir of [install, home, ws]) await dir[Symbol.asyncDispose]();
    },
  };
}
