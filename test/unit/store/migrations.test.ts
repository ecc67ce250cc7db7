import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DaemonError } from "../../../src/errors/daemon-error.ts";
import { DB_FILE, PAGE_CACHE_KIB, openDatabase } from "../../../src/store/database.ts";
import { MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError, migrate, schemaVersion } from "../../../src/store/migrations.ts";
import { Store } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

/** A store on `dataDir`, opened now (a store opens on first use; a read it cannot answer is a 503, kept in `refused`). */
function openedStore(dataDir: string): Store & { refused?: DaemonError } {
  const store: Store & { refused?: DaemonError } = new Store(dataDir);
  try {
    store.sessions("/", false, 1, null);
  } catch (error) {
    if (!(error instanceof DaemonError)) throw error;
    store.refused = error;
  }
  return store;
}

/** A database file at `version`: the migrations up to it applied, the rest not. */
function databaseAt(path: string, version: number): Database {
  const db = new Database(path, { create: true, strict: true });
  migrate(db, MIGRATIONS.filter((m) => m.version <= version));
  expect(schemaVersion(db)).toBe(version);
  return db;
}

describe("schema migrations", () => {
  test("the list is ordered, from 1, without gaps", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  test("a database at the previous version is brought up to date and keeps its sessions", async () => {
    await using dir = tempDir();
    const previous = SCHEMA_VERSION - 1;
    const old = databaseAt(join(dir.path, DB_FILE), previous);
    old.run("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id, state) VALUES ('s-old', '/ws', 1, 2, 's-old', 'closed')");
    old.close();

    const store = openedStore(dir.path);
    try {
      expect(store.degraded).toBeNull();
      // A row from before the source columns has no source; a new row keeps its own, and the lists filter on it.
      expect(store.session("s-old")).toMatchObject({ id: "s-old", workspace: "/ws", createdAt: 1, state: "closed", sourceType: null, sourceId: null });
      store.sessionStarted({ id: "s-new", workspace: "/ws", createdAt: 5, agentSessionId: "s-new", profile: null, sourceType: "web_shell", sourceId: "tab-1" });
      store.flush();
      expect(store.session("s-new")).toMatchObject({ sourceType: "web_shell", sourceId: "tab-1" });
      expect(store.sessions("/ws", false, 10, null, { sourceType: "web_shell" }).map((r) => r.id)).toEqual(["s-new"]);
      expect(store.sessions("/ws", false, 10, null, { sourceType: "web_shell", sourceId: "tab-2" })).toEqual([]);
      expect(store.sessions("/ws", false, 10, null).map((r) => r.id).sort()).toEqual(["s-new", "s-old"]);
      // The journal works: an event journaled for the old session reads back.
      let durable = false;
      store.record({ sessionId: "s-old", epoch: "e", eventId: 1, envelope: '{"id":1}', timestamp: 3 }, () => (durable = true));
      store.flush();
      expect(durable).toBe(true);
      expect(store.journal("s-old", 0, 10).map((r) => r.envelope)).toEqual(['{"id":1}']);
    } finally {
      store.close();
    }
    const db = new Database(join(dir.path, DB_FILE));
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    db.close();
  });

  test("every earlier version migrates to the current one", async () => {
    await using dir = tempDir();
    for (let version = 0; version < SCHEMA_VERSION; version++) {
      const path = join(dir.path, `v${version}.db`);
      databaseAt(path, version).close();
      const db = new Database(path, { strict: true });
      expect(migrate(db)).toEqual(MIGRATIONS.filter((m) => m.version > version).map((m) => m.version));
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      expect(migrate(db)).toEqual([]);
      db.close();
    }
  });

  test("a migration that fails leaves the database at the version before it", async () => {
    await using dir = tempDir();
    const db = new Database(join(dir.path, DB_FILE), { strict: true });
    const broken = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, up: "CREATE TABLE extra (x INTEGER); THIS IS NOT SQL;" }];
    expect(() => migrate(db, broken)).toThrow();
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'extra'").all()).toEqual([]);
    db.close();
  });

  test("a database from a newer svc is left untouched and recording is reported unavailable", async () => {
    await using dir = tempDir();
    const db = new Database(join(dir.path, DB_FILE), { create: true });
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    expect(() => openDatabase(dir.path)).toThrow(SchemaTooNewError);
    const store = openedStore(dir.path);
    expect(store.degraded).toMatchObject({ reason: "unavailable" });
    expect(store.degraded!.error).toContain("newer");
    // Its history is there, only not for this svc to read: 503, never an empty list.
    expect(store.refused?.body()).toMatchObject({ code: "store_unavailable", reason: "schema_too_new", retryable: false });
    store.close();
    const after = new Database(join(dir.path, DB_FILE));
    expect(schemaVersion(after)).toBe(SCHEMA_VERSION + 5);
    after.close();
  });

  test("a database from a newer svc is not changed at all: no WAL switch, no chmod", async () => {
    await using dir = tempDir();
    const path = join(dir.path, DB_FILE);
    const db = new Database(path, { create: true });
    db.run("PRAGMA journal_mode = DELETE");
    db.run("CREATE TABLE future (x INTEGER)");
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    chmodSync(path, 0o644);
    const before = statSync(path);
    expect(() => openDatabase(dir.path)).toThrow(SchemaTooNewError);
    const after = statSync(path);
    expect(after.mode & 0o777).toBe(0o644);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    const check = new Database(path, { readonly: true });
    expect(check.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "delete" });
    check.close();
  });

  test("an opened database keeps a small footprint: bounded page cache, no mmap, temp data on disk", async () => {
    await using dir = tempDir();
    const db = openDatabase(dir.path);
    expect(db.query("PRAGMA cache_size").get()).toEqual({ cache_size: -PAGE_CACHE_KIB });
    expect(db.query("PRAGMA mmap_size").get()).toEqual({ mmap_size: 0 });
    // 1 = FILE.
    expect(db.query("PRAGMA temp_store").get()).toEqual({ temp_store: 1 });
    db.close();
  });

  test("a data dir that cannot hold the database gives a degraded store, not an exception", async () => {
    await using dir = tempDir();
    const fileInTheWay = join(dir.path, "not-a-dir");
    writeFileSync(fileInTheWay, "x");
    const store = openedStore(fileInTheWay);
    expect(store.degraded).toMatchObject({ reason: "unavailable" });
    expect(store.unavailable).toMatchObject({ reason: "unreadable" });
    // Recording releases at once, as not recorded; reads answer 503, not an empty list.
    let recorded: boolean | undefined;
    store.record({ sessionId: "s", epoch: "e", eventId: 1, envelope: "{}", timestamp: 1 }, (done) => (recorded = done));
    expect(recorded).toBe(false);
    expect(() => store.sessions("/ws", false, 10, null)).toThrow(expect.objectContaining({ status: 503, code: "store_unavailable", fields: expect.objectContaining({ reason: "unreadable" }) }));
    store.close();

    mkdirSync(join(dir.path, "db-is-dir", DB_FILE), { recursive: true });
    const other = openedStore(join(dir.path, "db-is-dir"));
    expect(other.degraded).toMatchObject({ reason: "unavailable" });
    other.close();
  });
});
