/** The persistent workspace registrations in svc.db: kept per primary workspace, and read at the core's build without the store. */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../../src/store/database.ts";
import { MIGRATIONS, migrate } from "../../../src/store/migrations.ts";
import { Store } from "../../../src/store/store.ts";
import { peekRegistrations } from "../../../src/store/workspace-registrations.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const row = (id: string, path: string, displayName: string | null = null) => ({ id, path, displayName, createdAt: 1 });

test("registrations are kept per primary workspace; add, rename and remove say whether they found one", async () => {
  await using dir = tempDir("svc-reg-store-");
  const store = new Store(dir.path);
  try {
    expect(store.addRegistration("/p1", row("a", "/ws/a", "A"))).toBe(true);
    expect(store.addRegistration("/p1", row("a", "/ws/a"))).toBe(false);
    expect(store.addRegistration("/p2", row("b", "/ws/b"))).toBe(true);
    expect(store.registrations("/p1")).toEqual([row("a", "/ws/a", "A")]);
    expect(store.renameRegistration("/p1", "a", null)).toBe(true);
    expect(store.renameRegistration("/p1", "b", "x")).toBe(false);
    expect(store.registrations("/p1")).toEqual([row("a", "/ws/a")]);
    // Read beside the open store, on a connection of its own, without its lock.
    expect(peekRegistrations(dir.path, "/p2").rows).toEqual([row("b", "/ws/b")]);
    expect(store.removeRegistration("/p1", "a")).toBe(true);
    expect(store.removeRegistration("/p1", "a")).toBe(false);
    expect(store.registrations("/p1")).toEqual([]);
  } finally {
    store.close();
  }
});

test("the read at the core's build finds none without a database, or in one from before the registrations", async () => {
  await using dir = tempDir("svc-reg-peek-");
  expect(peekRegistrations(dir.path, "/p")).toEqual({ rows: [], all: [] });
  const db = new Database(join(dir.path, DB_FILE), { create: true, strict: true });
  migrate(db, MIGRATIONS.filter((m) => m.version < 7));
  db.close();
  expect(peekRegistrations(dir.path, "/p")).toEqual({ rows: [], all: [] });
});
