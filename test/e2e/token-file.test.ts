/**
 * `svc serve --token-file <path>` (sources, or the binary under SVC_TEST_TARGET=binary): the token
 * read from a regular file of this user's with no group or other access, one trailing newline
 * dropped; the daemon then answers only with it, and its ready line and discovery record name the
 * file, never the token. Every other file (looser mode, another owner, empty, a symlink, a
 * directory, a FIFO, a second line) is a boot failure that names the file and never its content.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSvc } from "../helpers/daemon.ts";
import { discover, discoveryFolder, spawnReady } from "../helpers/launcher.ts";
import { AS_ROOT, OTHER_UID } from "../helpers/other-user.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "tok-file-7d41c9e2b05a";

/** A data dir, a workspace and a token file with `content` and `mode`, under one temp dir. */
function setUp(root: string, content: string, mode = 0o600) {
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const file = join(root, "token");
  writeFileSync(file, content, { mode });
  chmodSync(file, mode);
  return { home, workspace, file, env: { SVC_HOME: home, SVC_SERVER_TOKEN: undefined } };
}

/** `svc serve --token-file <file>` that must fail to boot: exit 2, one stderr line naming the file, no token in it. */
async function expectRefused(root: string, file: string, reason: RegExp, extra: string[] = [], env: Record<string, string | undefined> = {}) {
  const workspace = join(root, "ws");
  const result = await runSvc(["serve", "--port", "0", "--workspace", workspace, "--token-file", file, ...extra], { env: { SVC_HOME: join(root, "home"), SVC_SERVER_TOKEN: undefined, ...env } });
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.split("\n")).toEqual([expect.stringMatching(reason), ""]);
  expect(result.stderr).not.toContain(TOKEN);
  return result;
}

describe.concurrent("--token-file", () => {
  test("a 0600 file: the daemon requires its token; the ready line and discovery record name the file, never the token", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { workspace, file, env, home } = setUp(dir.path, `${TOKEN}\n`);
    await using d = await spawnReady(["--workspace", workspace, "--token-file", file], { env });
    expect(d.ready).toMatchObject({ auth: "bearer", tokenFile: file });
    expect(Object.keys(d.ready)).toEqual(["ready", "url", "port", "pid", "version", "workspace", "auth", "tokenFile"]);
    expect(d.stdout()).not.toContain(TOKEN);
    expect((await fetch(`${d.ready.url}/capabilities`)).status).toBe(401);
    expect((await fetch(`${d.ready.url}/capabilities`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const found = await discover(["--workspace", workspace], { env });
    expect(found.record).toMatchObject({ pid: d.proc.pid, auth: "bearer", tokenFile: file });
    const [record] = readdirSync(discoveryFolder(home));
    expect(readFileSync(join(discoveryFolder(home), record!), "utf8")).not.toContain(TOKEN);
    expect(d.stderr()).not.toContain(TOKEN);
  });

  test("a relative path is taken from the current directory; \\r\\n is dropped; 0400 is strict enough; it wins over SVC_SERVER_TOKEN, with a warning", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { workspace, env } = setUp(dir.path, `${TOKEN}\r\n`, 0o400);
    await using d = await spawnReady(["--workspace", workspace, "--token-file", "token"], { env: { ...env, SVC_SERVER_TOKEN: "tok-from-env-other" }, cwd: dir.path });
    expect(d.ready.tokenFile).toBe(join(dir.path, "token"));
    expect((await fetch(`${d.ready.url}/capabilities`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${d.ready.url}/capabilities`, { headers: { authorization: "Bearer tok-from-env-other" } })).status).toBe(401);
    expect(d.stderr()).toContain("SVC_SERVER_TOKEN is ignored: --token-file gives the token");
  });

  test("a file without a trailing newline is the token as it is", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { workspace, file, env } = setUp(dir.path, TOKEN);
    await using d = await spawnReady(["--workspace", workspace, "--token-file", file], { env });
    expect((await fetch(`${d.ready.url}/capabilities`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  test("group or other access is refused, with the chmod to run", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { file } = setUp(dir.path, `${TOKEN}\n`, 0o640);
    await expectRefused(dir.path, file, /^svc: --token-file .*token: has mode 0640, which lets other users read or change it; run chmod 600 /);
    chmodSync(file, 0o604);
    await expectRefused(dir.path, file, /has mode 0604/);
  });

  test.skipIf(!AS_ROOT)("a file owned by another user is refused", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { file } = setUp(dir.path, `${TOKEN}\n`);
    chownSync(file, OTHER_UID, OTHER_UID);
    await expectRefused(dir.path, file, new RegExp(`is owned by uid ${OTHER_UID}, not by this user \\(uid ${process.getuid!()}\\)`));
  });

  test("an empty file, or one holding only a newline, is refused", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { file } = setUp(dir.path, "");
    await expectRefused(dir.path, file, /: is empty; write the token into it/);
    writeFileSync(file, "\n");
    await expectRefused(dir.path, file, /: is empty; write the token into it/);
  });

  test("a second line, or white space around the token, is refused without echoing it", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { file } = setUp(dir.path, `${TOKEN}\nsecond-line\n`);
    await expectRefused(dir.path, file, /^svc: the bearer token \(--token-file .*token\) contains a control character \(character 22\)/);
    expect(TOKEN.length).toBe(21);
    writeFileSync(file, `${TOKEN}\n\n`);
    await expectRefused(dir.path, file, /must not start or end with white space/);
    writeFileSync(file, ` ${TOKEN}\n`);
    await expectRefused(dir.path, file, /must not start or end with white space/);
  });

  test("a symlink, a directory, a FIFO and a missing file are refused at once", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { file } = setUp(dir.path, `${TOKEN}\n`);
    const link = join(dir.path, "link");
    symlinkSync(file, link);
    await expectRefused(dir.path, link, /: is a symbolic link; give the file itself$/);
    const folder = join(dir.path, "folder");
    mkdirSync(folder, { mode: 0o700 });
    await expectRefused(dir.path, folder, /: is not a regular file$/);
    const fifo = join(dir.path, "fifo");
    expect(Bun.spawnSync(["mkfifo", "-m", "600", fifo]).exitCode).toBe(0);
    await expectRefused(dir.path, fifo, /: is not a regular file$/);
    await expectRefused(dir.path, join(dir.path, "missing"), /: does not exist$/);
  });

  test("--token with --token-file is refused; an empty --token-file too", async () => {
    await using dir = tempDir("svc-tokfile-");
    const { file } = setUp(dir.path, `${TOKEN}\n`);
    await expectRefused(dir.path, file, /^svc: --token and --token-file both give the token: pass one of them$/, ["--token", "tok-other"]);
    await expectRefused(dir.path, "", /^svc: --token-file: must not be empty$/);
  });
});
