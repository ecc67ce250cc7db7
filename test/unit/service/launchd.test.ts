/**
 * `svc service` on macOS, driven in process (the platform is an input) with a fake `launchctl` on
 * PATH that records its arguments, in a temp HOME: the agent's plist, the calls for install
 * (bootout, enable, bootstrap), uninstall (bootout) and status (print), and a GUI domain that
 * cannot be reached (exit 3, what to run). launchd itself cannot run here: plutil and launchctl are
 * macOS tools (README).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveServiceConfig } from "../../../src/config/service-config.ts";
import { runService } from "../../../src/service/index.ts";
import { readPlist } from "../../../src/service/launchd-plist.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const UID = 501;

function setUp(root: string) {
  const home = join(root, "home");
  const workspace = join(root, "ws");
  const bin = join(root, "bin");
  const log = join(root, "launchctl.log");
  const noDomain = join(root, "no-domain");
  for (const dir of [home, workspace, bin]) mkdirSync(dir);
  writeFileSync(log, "");
  writeFileSync(
    join(bin, "launchctl"),
    `#!/bin/sh
printf '%s\\n' "$*" >> '${log}'
if [ "$1" = print ] && [ -e '${noDomain}' ]; then echo "Could not find domain for port identifier" >&2; exit 113; fi
if [ "$1" = print ] && [ "$2" = gui/${UID}/dev.svc.daemon ]; then
  loaded=$(cat '${join(root, "loaded-from")}' 2>/dev/null)
  [ -n "$loaded" ] || { echo "Could not find service" >&2; exit 113; }
  printf 'gui/${UID}/dev.svc.daemon = {\\n\\tactive count = 1\\n\\tpath = %s\\n\\tstate = running\\n}\\n' "$loaded"
fi
case "$1" in bootstrap) printf '%s' "$3" > '${join(root, "loaded-from")}';; bootout) rm -f '${join(root, "loaded-from")}';; esac
exit 0
`,
  );
  chmodSync(join(bin, "launchctl"), 0o755);
  const env = { HOME: home, PATH: `${bin}:/usr/bin:/bin` };
  const run = async (args: string[]) => {
    const lines = { out: [] as string[], err: [] as string[] };
    const config = resolveServiceConfig({ args, env, cwd: workspace, execPath: "/Applications/svc/svc", selfEntry: "/$bunfs/root/svc", platform: "darwin", uid: UID });
    const code = await runService(config, { out: (l) => lines.out.push(l), err: (l) => lines.err.push(l) });
    return { code, out: lines.out.join("\n"), err: lines.err.join("\n") };
  };
  return {
    home,
    workspace,
    plist: join(home, "Library", "LaunchAgents", "dev.svc.daemon.plist"),
    dataDir: join(home, "Library", "Application Support", "svc"),
    calls: () => readFileSync(log, "utf8").split("\n").filter((l) => l !== ""),
    noDomain: () => writeFileSync(noDomain, ""),
    run,
  };
}

describe.concurrent("svc service (launchd)", () => {
  test("install: the plist in ~/Library/LaunchAgents, the token under the data dir, bootout + enable + bootstrap in gui/<uid>", async () => {
    await using dir = tempDir("svc-launchd-");
    const s = setUp(dir.path);
    const result = await s.run(["install", "--port", "4171"]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(s.calls()).toEqual([`print gui/${UID}`, `bootout gui/${UID}/dev.svc.daemon`, `enable gui/${UID}/dev.svc.daemon`, `bootstrap gui/${UID} ${s.plist}`]);
    const tokenFile = join(s.dataDir, "service.token");
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(s.plist, "utf8");
    expect(text).not.toContain(readFileSync(tokenFile, "utf8").trim());
    expect(readPlist(text)).toEqual({
      exec: ["/Applications/svc/svc", "serve", "--port=4171", `--workspace=${s.workspace}`, `--token-file=${tokenFile}`],
      env: { SVC_HOME: s.dataDir, PATH: `${dir.path}/bin:/usr/bin:/bin` },
    });
    expect(text).toContain(`<string>${s.dataDir}/logs/service.log</string>`);
    expect(result.out).toContain(`logs: ${s.dataDir}/logs/service.log`);

    const status = await s.run(["status"]);
    expect(status.code).toBe(3);
    expect(status.out).toContain(`installed: ${s.plist}\nlaunchd: running\ndaemon: none running for ${s.workspace}`);
  });

  test("uninstall: bootout, the plist removed, the data dir kept", async () => {
    await using dir = tempDir("svc-launchd-");
    const s = setUp(dir.path);
    expect((await s.run(["install"])).code).toBe(0);
    const result = await s.run(["uninstall"]);
    expect(result.code).toBe(0);
    expect(s.calls().slice(4)).toEqual([`print gui/${UID}`, `bootout gui/${UID}/dev.svc.daemon`]);
    expect(existsSync(s.plist)).toBe(false);
    expect(existsSync(join(s.dataDir, "service.token"))).toBe(true);
    // Gone, and launchd has it loaded from nowhere: not installed.
    expect(await s.run(["status"])).toMatchObject({ code: 4, out: `not installed (no ${s.plist}, and the launchd has none loaded)` });
  });

  test("no plist under this HOME: launchd is asked where it loaded the agent from, and status uses that plist", async () => {
    await using dir = tempDir("svc-launchd-");
    const s = setUp(dir.path);
    expect((await s.run(["install"])).code).toBe(0);
    const moved = join(dir.path, "elsewhere.plist");
    renameSync(s.plist, moved);
    writeFileSync(join(dir.path, "loaded-from"), moved);
    const status = await s.run(["status"]);
    expect(status.code).toBe(3);
    expect(status.out).toContain(`found where the launchd loads it: ${moved} (not ${s.plist}`);
    expect(status.out).toContain(`installed: ${moved}\nlaunchd: running\n`);
  });

  test("no GUI domain (an ssh login): the plist written, what to run printed, exit 3; status unknown", async () => {
    await using dir = tempDir("svc-launchd-");
    const s = setUp(dir.path);
    s.noDomain();
    const result = await s.run(["install"]);
    expect(result.code).toBe(3);
    expect(result.err).toContain(`launchctl cannot reach gui/${UID} (launchctl print gui/${UID} exited 113: Could not find domain`);
    expect(result.out).toContain(`  launchctl bootstrap gui/${UID} ${s.plist}`);
    expect(existsSync(s.plist)).toBe(true);
    expect((await s.run(["status"])).out).toContain(`launchd: unknown (launchctl cannot reach gui/${UID}:`);
    const removed = await s.run(["uninstall"]);
    expect(removed.code).toBe(3);
    expect(removed.out).toContain(`  launchctl bootout gui/${UID}/dev.svc.daemon`);
    expect(existsSync(s.plist)).toBe(false);
  });
});
