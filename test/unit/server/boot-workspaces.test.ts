/**
 * The workspaces `/capabilities` lists before the core is built (`boot-workspaces.ts`) and the
 * registrations' mirror it reads (`registration-mirror.ts`): the list when it is sure to be the
 * core's, null (build the core) whenever only the core can say.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bootWorkspaces } from "../../../src/server/boot-workspaces.ts";
import { DB_FILE } from "../../../src/store/db-file.ts";
import { databaseIdentity, MAX_MIRROR_BYTES, MIRROR_FILE, readRegistrationMirror, writeRegistrationMirror, type MirrorRow } from "../../../src/store/registration-mirror.ts";
import { Store } from "../../../src/store/store.ts";
import { changedRules, updateTrustStore } from "../../../src/trust/index.ts";
import { workspaceId } from "../../../src/workspace/workspace-id.ts";
import { configFixture } from "../../helpers/config.ts";

const row = (primary: string, path: string, displayName: string | null = null): MirrorRow => ({ primary, id: workspaceId(path), path, displayName });

test("the mirror: absent, the rows of one primary in order, unusable when it cannot be trusted; written 0600", async () => {
  await using fx = configFixture();
  expect(readRegistrationMirror(fx.home, "/p")).toEqual({ kind: "absent" });
  writeRegistrationMirror(fx.home, [row("/p", "/a", "A"), row("/q", "/b"), row("/p", "/c")]);
  expect(readRegistrationMirror(fx.home, "/p")).toEqual({ kind: "rows", rows: [row("/p", "/a", "A"), row("/p", "/c")], db: null });
  expect(statSync(join(fx.home, MIRROR_FILE)).mode & 0o777).toBe(0o600);
  const file = join(fx.home, MIRROR_FILE);
  const unusable = [
    "{",
    "[]",
    "null",
    JSON.stringify({ v: 1, registrations: [] }), // an earlier svc's: it names no database
    JSON.stringify({ v: 2, registrations: [] }),
    JSON.stringify({ v: 2, db: 1, registrations: [] }),
    JSON.stringify({ v: 2, db: null, registrations: [{ primary: "/p", id: "x", path: 1 }] }),
    JSON.stringify({ v: 2, db: null, registrations: [] }).padEnd(MAX_MIRROR_BYTES + 1, " "),
  ];
  for (const text of unusable) {
    writeFileSync(file, text);
    expect(readRegistrationMirror(fx.home, "/p")).toEqual({ kind: "unusable" });
  }
  rmSync(file);
  mkdirSync(join(fx.home, "elsewhere"));
  writeFileSync(join(fx.home, "elsewhere", "m.json"), JSON.stringify({ v: 2, db: null, registrations: [] }));
  symlinkSync(join(fx.home, "elsewhere", "m.json"), file);
  expect(readRegistrationMirror(fx.home, "/p")).toEqual({ kind: "unusable" });
});

test("a write that cannot complete leaves no readable mirror and no temp file", async () => {
  await using fx = configFixture();
  // A directory where the mirror goes: the rename fails.
  mkdirSync(join(fx.home, MIRROR_FILE));
  writeRegistrationMirror(fx.home, [row("/p", "/a")]);
  expect(readRegistrationMirror(fx.home, "/p")).toEqual({ kind: "unusable" });
  expect(readdirSync(fx.home).filter((name) => name.endsWith(".tmp"))).toEqual([]);
});

test("the store rewrites the mirror with every change to the registrations", async () => {
  await using fx = configFixture();
  const store = new Store(fx.home);
  try {
    store.addRegistration("/p", { id: "a", path: "/a", displayName: null, createdAt: 1 });
    store.addRegistration("/p", { id: "b", path: "/b", displayName: null, createdAt: 2 });
    store.renameRegistration("/p", "a", "A");
    store.removeRegistration("/p", "b");
    expect(readRegistrationMirror(fx.home, "/p")).toMatchObject({ kind: "rows", rows: [{ primary: "/p", id: "a", path: "/a", displayName: "A" }] });
  } finally {
    store.close();
  }
});

test("the boot list: the primary alone without a database; the registrations the core would serve, with their live trust", async () => {
  await using fx = configFixture();
  const config = fx.resolve();
  expect(bootWorkspaces(config, () => true).workspaces()).toEqual([{ id: workspaceId(config.workspace), cwd: config.workspace, primary: true, trusted: true, removable: false }]);

  const other = realpathSync(join(fx.home, ".."));
  const a = join(other, "a");
  mkdirSync(a);
  writeFileSync(join(fx.home, DB_FILE), "");
  writeRegistrationMirror(fx.home, [row(config.workspace, a, "A"), row("/another-primary", "/x")]);
  const boot = bootWorkspaces(config, () => false);
  expect(boot.workspaces()).toEqual([
    { id: workspaceId(config.workspace), cwd: config.workspace, primary: true, trusted: false, removable: false },
    { id: workspaceId(a), cwd: a, displayName: "A", primary: false, trusted: false, removable: true },
  ]);
  updateTrustStore(fx.home, (rules) => changedRules(rules, a, "trusted"));
  expect(boot.workspaces()?.[1]?.trusted).toBe(true);
});

test("the boot list defers to the core (null) when only the core can say", async () => {
  await using fx = configFixture();
  const config = fx.resolve(["--max-workspaces", "2"]);
  const base = realpathSync(join(fx.home, ".."));
  const [a, b] = [join(base, "a"), join(base, "b")];
  for (const dir of [a, b]) mkdirSync(dir);
  const defers = (rows: MirrorRow[] | null, cfg = config) => {
    if (rows === null) rmSync(join(fx.home, MIRROR_FILE), { force: true });
    else writeRegistrationMirror(fx.home, rows);
    return bootWorkspaces(cfg, () => true).workspaces() === null;
  };
  expect(defers([row(config.workspace, a)])).toBe(false);
  writeFileSync(join(fx.home, DB_FILE), "");
  expect(bootWorkspaces(config, () => true).workspaces()).toBeNull(); // a database the mirror does not name
  expect(defers([row(config.workspace, a)])).toBe(false);
  expect(defers(null)).toBe(true); // a database without a mirror
  expect(defers([row(config.workspace, join(base, "missing"))])).toBe(true); // a folder gone
  expect(defers([row(config.workspace, join(config.workspace, "."))])).toBe(true); // not canonical
  mkdirSync(join(config.workspace, "inner"));
  expect(defers([row(config.workspace, join(config.workspace, "inner"))])).toBe(true); // nested in the primary
  expect(defers([row(config.workspace, a), row(config.workspace, b)])).toBe(true); // past --max-workspaces
  expect(defers([row(config.workspace, fx.home)])).toBe(true); // the data dir
  writeFileSync(join(fx.home, MIRROR_FILE), "not json");
  expect(bootWorkspaces(config, () => true).workspaces()).toBeNull();
});

test("the boot list is read at each request: a registered folder turned into a link defers to the core", async () => {
  await using fx = configFixture();
  const config = fx.resolve();
  const base = realpathSync(join(fx.home, ".."));
  const [a, b] = [join(base, "a"), join(base, "b")];
  for (const dir of [a, b]) mkdirSync(dir);
  writeFileSync(join(fx.home, DB_FILE), "");
  writeRegistrationMirror(fx.home, [row(config.workspace, a)]);
  const boot = bootWorkspaces(config, () => true);
  expect(boot.workspaces()?.map((w) => w.cwd)).toEqual([config.workspace, a]);
  rmSync(a, { recursive: true });
  symlinkSync(b, a);
  expect(boot.workspaces()).toBeNull();
});

test("a mirror of another database than the one there now defers to the core: deleted, replaced, restored", async () => {
  await using fx = configFixture();
  const config = fx.resolve();
  const a = join(realpathSync(join(fx.home, "..")), "a");
  mkdirSync(a);
  const dbPath = join(fx.home, DB_FILE);
  const store = new Store(fx.home);
  try {
    store.addRegistration(config.workspace, { id: workspaceId(a), path: a, displayName: null, createdAt: 1 });
  } finally {
    store.close();
  }
  // Sealed at the close: it names the database as the close left it.
  expect(readRegistrationMirror(fx.home, config.workspace)).toMatchObject({ kind: "rows", db: databaseIdentity(fx.home) });
  const boot = bootWorkspaces(config, () => true);
  expect(boot.workspaces()?.map((w) => w.cwd)).toEqual([config.workspace, a]);
  copyFileSync(dbPath, join(fx.home, "backup.db"));

  rmSync(dbPath);
  expect(boot.workspaces()).toBeNull(); // deleted: the core starts an empty one
  renameSync(join(fx.home, "backup.db"), dbPath);
  expect(boot.workspaces()).toBeNull(); // the same bytes, but another file (a restore)
  writeRegistrationMirror(fx.home, [row(config.workspace, a)]);
  expect(boot.workspaces()?.map((w) => w.cwd)).toEqual([config.workspace, a]);
  writeFileSync(dbPath, "older copy", { flag: "r+" });
  expect(boot.workspaces()).toBeNull(); // rewritten in place
});

test("a commit another client left in svc.db's write-ahead log defers to the core, though svc.db itself did not change", async () => {
  await using fx = configFixture();
  const config = fx.resolve();
  const a = join(realpathSync(join(fx.home, "..")), "a");
  mkdirSync(a);
  const store = new Store(fx.home);
  try {
    store.addRegistration(config.workspace, { id: workspaceId(a), path: a, displayName: null, createdAt: 1 });
  } finally {
    store.close();
  }
  const boot = bootWorkspaces(config, () => true);
  expect(boot.workspaces()?.map((w) => w.cwd)).toEqual([config.workspace, a]);
  const main = statSync(join(fx.home, DB_FILE), { bigint: true });
  // A sqlite3 shell, say, that deletes the registration and is still open (nothing checkpointed).
  const other = new Database(join(fx.home, DB_FILE));
  try {
    other.run("PRAGMA wal_autocheckpoint = 0");
    other.run("DELETE FROM workspace_registrations");
    const after = statSync(join(fx.home, DB_FILE), { bigint: true });
    expect([after.size, after.mtimeNs]).toEqual([main.size, main.mtimeNs]);
    expect(boot.workspaces()).toBeNull();
  } finally {
    other.close();
  }
});
