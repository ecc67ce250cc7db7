/**
 * `svc service install|uninstall|status` on Linux (sources, or the binary under
 * SVC_TEST_TARGET=binary), never against the real HOME or the user's systemd: HOME and
 * XDG_CONFIG_HOME are temp dirs and `systemctl` on PATH is a fake that records its arguments (and
 * can play a manager without a user bus). Checked: the calls, the unit's content (and
 * `systemd-analyze verify` on it: skipped without the tool, failed under CI), the 0600 token file,
 * the daemon the unit's own command line starts (found by status and discover, answering with the
 * file's token), the exit codes, and that nothing secret is printed or written into the unit.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readUnit } from "../../src/service/systemd-unit.ts";
import { runSvc, spawnDaemon, svcCommand } from "../helpers/daemon.ts";
import { discover } from "../helpers/launcher.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const SYSTEMD_ANALYZE = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((p) => existsSync(p)) ?? null;
const TOKEN = "tok-service-0e9f3a1c7b52";

interface Setup {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  readonly dataDir: string;
  readonly unit: string;
  readonly tokenFile: string;
  readonly env: Record<string, string | undefined>;
  /** The fake systemctl's calls so far, one line of arguments each. */
  calls(): string[];
  /** From now on the fake answers as a systemctl without a user bus. */
  noBus(): void;
}

/** A temp HOME, XDG_CONFIG_HOME, workspace and a fake `systemctl` first on PATH. */
function setUp(root: string): Setup {
  const home = join(root, "home");
  const workspace = join(root, "my ws");
  const bin = join(root, "bin");
  const log = join(root, "systemctl.log");
  const noBusFlag = join(root, "no-bus");
  for (const dir of [home, workspace, bin]) mkdirSync(dir);
  writeFileSync(log, "");
  writeFileSync(
    join(bin, "systemctl"),
    `#!/bin/sh
printf '%s\\n' "$*" >> '${log}'
if [ -e '${noBusFlag}' ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
case "$2" in
  is-active) cat '${join(root, "active")}' 2>/dev/null || echo active;;
  is-enabled) echo enabled;;
  show) cat '${join(root, "loaded-from")}' 2>/dev/null || printf 'FragmentPath=\\nLoadState=not-found\\n';;
esac
exit 0
`,
  );
  chmodSync(join(bin, "systemctl"), 0o755);
  const configHome = join(root, "config");
  return {
    root,
    home,
    workspace,
    dataDir: join(home, ".local", "share", "svc"),
    unit: join(configHome, "systemd", "user", "svc.service"),
    tokenFile: join(home, ".local", "share", "svc", "service.token"),
    env: { HOME: home, XDG_CONFIG_HOME: configHome, XDG_DATA_HOME: undefined, SVC_HOME: undefined, SVC_SERVER_TOKEN: undefined, PATH: `${bin}:${process.env.PATH}` },
    calls: () => readFileSync(log, "utf8").split("\n").filter((l) => l !== ""),
    noBus: () => writeFileSync(noBusFlag, ""),
  };
}

const service = (s: Setup, args: string[], env: Record<string, string | undefined> = {}) => runSvc(["service", ...args], { env: { ...s.env, ...env }, cwd: s.workspace });

/** `systemd-analyze --user verify` on the unit: its exit code and everything it said (nothing, when the unit is clean). */
function verify(s: Setup): { code: number | null; said: string } {
  const runtime = join(s.root, "runtime");
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: s.home, XDG_CONFIG_HOME: s.env.XDG_CONFIG_HOME!, XDG_RUNTIME_DIR: runtime };
  const result = Bun.spawnSync([SYSTEMD_ANALYZE!, "--user", "verify", s.unit], { env });
  return { code: result.exitCode, said: `${result.stdout.toString()}${result.stderr.toString()}` };
}

describe.concurrent("svc service (systemd)", () => {
  test("install: a 0600 random token file, the unit, daemon-reload and enable --now; no token anywhere but the file", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const result = await service(s, ["install", "--port", "0", "--log-level=debug", "--allow-origin", "http://localhost:3000"]);
    expect(result.exitCode).toBe(0);
    expect(s.calls()).toEqual(["--user show-environment", "--user daemon-reload", "--user enable --now svc.service"]);
    const token = readFileSync(s.tokenFile, "utf8");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(statSync(s.tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(s.dataDir).mode & 0o777).toBe(0o700);
    const text = readFileSync(s.unit, "utf8");
    expect(text).not.toContain(token.trim());
    expect(`${result.stdout}${result.stderr}`).not.toContain(token.trim());
    expect(result.stdout).toContain(`token file: ${s.tokenFile} (0600, a new random token;`);
    const { exec, env } = readUnit(text);
    expect(exec).toEqual([...svcCommand(), "serve", "--port=0", "--log-level=debug", "--allow-origin=http://localhost:3000", `--workspace=${s.workspace}`, `--token-file=${s.tokenFile}`]);
    expect(env.SVC_HOME).toBe(s.dataDir);
    expect(env.PATH).toBe(s.env.PATH!.split(":").filter((p) => p.startsWith("/")).join(":"));
    for (const line of ["Type=exec", "Restart=on-failure", "RestartSec=2s", "KillMode=mixed", "StandardOutput=journal", "StandardError=journal", "NoNewPrivileges=yes", "UMask=0077", "WantedBy=default.target"])
      expect(text.split("\n")).toContain(line);
    expect(statSync(s.unit).mode & 0o777).toBe(0o644);
  });

  test.skipIf(SYSTEMD_ANALYZE === null && !process.env.CI)(`systemd-analyze verify passes on the unit, with a workspace path needing every escape${SYSTEMD_ANALYZE === null ? " (skipped: no systemd-analyze; .ci/run installs it)" : ""}`, async () => {
    if (SYSTEMD_ANALYZE === null) throw new Error("systemd-analyze is missing under CI: .ci/run installs the systemd package");
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const odd = join(s.root, `a "b" \\c %d $e 'f'`);
    mkdirSync(odd);
    const result = await service(s, ["install", "--workspace", odd]);
    expect(result.exitCode).toBe(0);
    expect(verify(s)).toEqual({ code: 0, said: "" });
    expect(readUnit(readFileSync(s.unit, "utf8")).exec).toContain(`--workspace=${odd}`);
    // The check can fail: a unit systemd would read otherwise is reported.
    writeFileSync(s.unit, readFileSync(s.unit, "utf8").replace("Type=exec", "Type=exe"));
    expect(verify(s).said).toContain("Failed to parse service type");
  });

  test("the unit's own command line starts a daemon that status and discover find, answering with the file's token", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    expect((await service(s, ["install", "--port", "0"], { SVC_SERVER_TOKEN: TOKEN })).exitCode).toBe(0);
    expect(readFileSync(s.tokenFile, "utf8")).toBe(`${TOKEN}\n`);
    expect(readFileSync(s.unit, "utf8")).not.toContain(TOKEN);
    // Status before it runs: installed, the manager's word, no daemon (exit 3).
    const before = await service(s, ["status"]);
    expect(before.exitCode).toBe(3);
    expect(before.stdout).toContain(`installed: ${s.unit}\nsystemd user manager: active (enabled)\ndaemon: none running for ${s.workspace}`);
    // What systemd would start: the ExecStart words with the unit's environment, from another directory.
    const { exec, env } = readUnit(readFileSync(s.unit, "utf8"));
    const proc = Bun.spawn(exec, { env: { ...env, HOME: s.home }, cwd: s.root, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    try {
      const found = await until(async () => ((await discover(["--workspace", s.workspace], { env: s.env })).record ?? null), 15_000, "the service's daemon");
      expect(found).toMatchObject({ pid: proc.pid, auth: "bearer", tokenFile: s.tokenFile, workspace: s.workspace });
      expect((await fetch(`${found.url}/capabilities`)).status).toBe(401);
      expect((await fetch(`${found.url}/capabilities`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
      const status = await service(s, ["status"]);
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toContain(`daemon: ${found.url} (pid ${proc.pid}, svc `);
      expect(status.stdout).toContain("/health ok");
      expect(`${status.stdout}${status.stderr}`).not.toContain(TOKEN);
      // The same daemon while the manager says the unit is not running: never "healthy".
      writeFileSync(join(s.root, "active"), "inactive\n");
      const inactive = await service(s, ["status"]);
      expect(inactive.exitCode).toBe(3);
      expect(inactive.stdout).toContain("systemd user manager: inactive (enabled)\n");
      expect(inactive.stdout).toContain("does not report the service running: this daemon was not started by it");
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });

  test("a re-install keeps the token file and restarts the service; SVC_SERVER_TOKEN replaces the token", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    expect((await service(s, ["install"])).exitCode).toBe(0);
    const first = readFileSync(s.tokenFile, "utf8");
    const again = await service(s, ["install", "--port", "4999"]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("the token it already held");
    expect(readFileSync(s.tokenFile, "utf8")).toBe(first);
    expect(s.calls().slice(3)).toEqual(["--user show-environment", "--user daemon-reload", "--user enable --now svc.service", "--user restart svc.service"]);
    expect(readUnit(readFileSync(s.unit, "utf8")).exec).toContain("--port=4999");
    expect((await service(s, ["install"], { SVC_SERVER_TOKEN: TOKEN })).exitCode).toBe(0);
    expect(readFileSync(s.tokenFile, "utf8")).toBe(`${TOKEN}\n`);
    expect(statSync(s.tokenFile).mode & 0o777).toBe(0o600);
  });

  test("a token file svc serve would refuse stops the install (exit 1), unchanged", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    mkdirSync(s.dataDir, { recursive: true });
    writeFileSync(s.tokenFile, `${TOKEN}\n`, { mode: 0o644 });
    const result = await service(s, ["install"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("has mode 0644");
    expect(result.stderr).not.toContain(TOKEN);
    expect(existsSync(s.unit)).toBe(false);
    expect(s.calls()).toEqual([]);
  });

  test("no user bus: the unit is written, the commands to run are printed, exit 3; status says unknown", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    s.noBus();
    const result = await service(s, ["install"]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain("systemctl --user cannot be reached (systemctl --user show-environment exited 1: Failed to connect to bus: No medium found)");
    expect(result.stdout).toContain("  systemctl --user daemon-reload\n  systemctl --user enable --now svc.service\n");
    expect(existsSync(s.unit)).toBe(true);
    expect(s.calls()).toEqual(["--user show-environment"]);
    const status = await service(s, ["status"]);
    expect(status.exitCode).toBe(3);
    expect(status.stdout).toContain("systemd user manager: unknown (systemctl --user cannot be reached:");
  });

  test("no systemctl at all: the same, exit 3", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const result = await service(s, ["install"], { PATH: join(s.root, "nowhere") });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain("systemctl is not installed (not on PATH)");
    expect(existsSync(s.unit)).toBe(true);
  });

  test("uninstall: disable --now, the unit removed, the data dir and token file left (said so); again: not installed", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    expect((await service(s, ["install"])).exitCode).toBe(0);
    const result = await service(s, ["uninstall"]);
    expect(result.exitCode).toBe(0);
    expect(s.calls().slice(3)).toEqual(["--user show-environment", "--user disable --now svc.service", "--user daemon-reload", "--user reset-failed svc.service"]);
    expect(existsSync(s.unit)).toBe(false);
    expect(existsSync(s.tokenFile)).toBe(true);
    expect(result.stdout).toContain(`left in place: the data dir ${s.dataDir} and the token file ${s.tokenFile}`);
    expect(await service(s, ["uninstall"])).toMatchObject({ exitCode: 0, stdout: `not installed (no ${s.unit}, and the systemd user manager has none loaded)\n` });
    expect(await service(s, ["status"])).toMatchObject({ exitCode: 4, stdout: `not installed (no ${s.unit}, and the systemd user manager has none loaded)\n` });
    expect(s.calls().slice(-2)).toEqual(["--user show-environment", "--user show -p FragmentPath,LoadState svc.service"]);
  });

  test("uninstall without a user bus: the unit and its default.target.wants link removed, what to run printed, exit 3", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    expect((await service(s, ["install"])).exitCode).toBe(0);
    const wants = join(s.unit, "..", "default.target.wants");
    mkdirSync(wants);
    symlinkSync(s.unit, join(wants, "svc.service"));
    s.noBus();
    const result = await service(s, ["uninstall"]);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain("  systemctl --user stop svc.service\n");
    expect(existsSync(s.unit)).toBe(false);
    expect(lstatSync(join(wants, "svc.service"), { throwIfNoEntry: false })).toBeUndefined();
  });

  test("refused and bad arguments: exit 2, one line, nothing written", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [["install"], /the bearer token \(SVC_SERVER_TOKEN\) contains a space/, { SVC_SERVER_TOKEN: "two words" }],
      [["install", "--token", TOKEN], /--token is refused: the token would be on the service's command line/],
      [["install", "--token-file", "/x"], /--token-file is refused/],
      [["install", "--parent-pid", "1"], /--parent-pid is refused/],
      [["install", "--open"], /--open is refused/],
      [["install", "--bogus"], /Unknown option '--bogus'/],
      [["install", "--port", "70000"], /--port: 70000 is out of range/],
      [["install", "--allow-origin", "not an origin"], /allow-origin/],
      [["install", "--workspace", join(s.root, "missing")], /--workspace: .* does not exist/],
      [["status", "extra"], /status takes no arguments/],
      [["start"], /unknown action "start"/],
      [[], /needs an action/],
    ];
    for (const [args, message, env] of cases) {
      const result = await service(s, args, env);
      expect({ args, code: result.exitCode }).toEqual({ args, code: 2 });
      expect(result.stderr.split("\n")).toEqual([expect.stringMatching(new RegExp(`^svc service: .*${message.source}`)), ""]);
      expect(result.stderr).not.toContain(TOKEN);
      expect(result.stderr).not.toContain("two words");
    }
    expect(existsSync(s.unit)).toBe(false);
    expect(existsSync(s.dataDir)).toBe(false);
    expect(s.calls()).toEqual([]);
  });

  test("status: a daemon started by hand for the workspace is not the service's daemon", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    expect((await service(s, ["install"], { SVC_SERVER_TOKEN: TOKEN })).exitCode).toBe(0);
    await using hand = await spawnDaemon(["serve", "--port", "0", "--workspace", s.workspace], { env: { ...s.env, SVC_HOME: s.dataDir }, cwd: s.workspace });
    await until(async () => ((await discover(["--workspace", s.workspace], { env: s.env })).record ?? null), 15_000, "the hand-started daemon");
    const status = await service(s, ["status"]);
    expect(status.exitCode).toBe(3);
    expect(status.stdout).toContain(`daemon: none running for ${s.workspace} with the service's token file`);
    expect(status.stdout).not.toContain(hand.url);
  });

  test("install checks the serve configuration with the unit's environment only, not the caller's", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    // The caller's SVC_CLI_ENTRY would make --agent generic start; the unit does not pass it on.
    const result = await service(s, ["install", "--agent=generic"], { SVC_CLI_ENTRY: join(import.meta.dir, "..", "fixtures", "fake-agent.ts") });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--agent generic needs the agent's entry script");
    expect(existsSync(s.unit)).toBe(false);
    expect(s.calls()).toEqual([]);
  });

  test("a relative XDG_DATA_HOME is ignored: the data dir and token file stay absolute, nothing lands in the cwd", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const result = await service(s, ["install"], { XDG_DATA_HOME: "rel" });
    expect(result.exitCode).toBe(0);
    const { exec, env } = readUnit(readFileSync(s.unit, "utf8"));
    expect(env.SVC_HOME).toBe(s.dataDir);
    expect(exec).toContain(`--token-file=${s.tokenFile}`);
    expect(existsSync(s.tokenFile)).toBe(true);
    expect(existsSync(join(s.workspace, "rel"))).toBe(false);
  });

  test("a svc.service svc did not write is neither overwritten by install nor removed by uninstall (exit 1, the reason)", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const theirs = "[Service]\nExecStart=/usr/bin/my-other-svc\n";
    mkdirSync(join(s.unit, ".."), { recursive: true });
    writeFileSync(s.unit, theirs);
    for (const args of [["install"], ["uninstall"]]) {
      const result = await service(s, args);
      expect({ args, code: result.exitCode }).toEqual({ args, code: 1 });
      expect(result.stderr).toContain(`${s.unit} was not written by svc service install (it lacks svc's header line)`);
    }
    expect(readFileSync(s.unit, "utf8")).toBe(theirs);
    expect(existsSync(s.tokenFile)).toBe(false);
    expect(s.calls()).toEqual([]);
    expect((await service(s, ["status"])).exitCode).toBe(4);
  });

  test("uninstall names only what it left in place: no token file it did not find", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    expect((await service(s, ["install"])).exitCode).toBe(0);
    rmSync(s.tokenFile);
    const result = await service(s, ["uninstall"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`left in place: the data dir ${s.dataDir} (delete it yourself`);
    expect(result.stdout).not.toContain("token file");
  });

  test("no unit file here: systemd is asked where it loads svc.service from, and status and uninstall use that file; unknown when it cannot be asked", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const elsewhere = join(s.root, "other-config");
    expect((await service(s, ["install"], { XDG_CONFIG_HOME: elsewhere })).exitCode).toBe(0);
    const unit = join(elsewhere, "systemd", "user", "svc.service");
    writeFileSync(join(s.root, "loaded-from"), `FragmentPath=${unit}\nLoadState=loaded\n`);
    const status = await service(s, ["status"]);
    expect(status.exitCode).toBe(3);
    expect(status.stdout).toContain(`found where the systemd user manager loads it: ${unit} (not ${s.unit}`);
    expect(status.stdout).toContain(`installed: ${unit}\nsystemd user manager: active (enabled)\n`);
    s.noBus();
    const unknown = await service(s, ["status"]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain(`unknown whether it is installed: no ${s.unit}, and the systemd user manager cannot tell (systemctl --user cannot be reached`);
    rmSync(join(s.root, "no-bus"));
    const removed = await service(s, ["uninstall"]);
    expect(removed.exitCode).toBe(0);
    expect(removed.stdout).toContain(`stopped, disabled and removed ${unit}`);
    expect(existsSync(unit)).toBe(false);
  });

  test("the runs: line shows control characters in flag values as escapes", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    const odd = join(s.root, "ws\x1b[2Jx");
    mkdirSync(odd);
    const result = await service(s, ["install", "--workspace", odd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`runs: svc serve --workspace=${join(s.root, "ws\\x1b[2Jx")} --token-file=`);
    expect(result.stdout).not.toContain("\x1b");
  });

  test("--help: the usage, exit 0, nothing done", async () => {
    await using dir = tempDir("svc-service-");
    const s = setUp(dir.path);
    for (const args of [["--help"], ["install", "--help"]]) {
      const result = await service(s, args);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toStartWith("usage:\n  svc service install [serve flags]");
    }
    expect(s.calls()).toEqual([]);
    expect(existsSync(s.unit)).toBe(false);
  });
});
