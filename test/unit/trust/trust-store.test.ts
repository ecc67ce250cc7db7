/**
 * The trust store on disk: written atomically with mode 0600, read without trusting what sits at
 * its path, bounded; a damaged store reads as damaged (its problem named) and is never overwritten.
 */
import { describe, expect, test } from "bun:test";
import { chownSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_ENTRIES, readTrustStore, storePath, TrustStoreError, updateTrustStore, type TrustRule } from "../../../src/trust/index.ts";
import { MAX_STORE_BYTES, writeTrustStore } from "../../../src/trust/trust-store.ts";
import { AS_ROOT, OTHER_UID } from "../../helpers/other-user.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const rule = (path: string, level: TrustRule["level"] = "TRUST_FOLDER"): TrustRule => ({ path, level, origin: "file" });

describe("trust store", () => {
  test("no store: no entries; an update creates it 0600 in a data dir it creates 0700, with no temp file left", async () => {
    await using dir = tempDir();
    const dataDir = join(dir.path, "home");
    expect(readTrustStore(dataDir)).toEqual({ ok: true, rules: [] });
    updateTrustStore(dataDir, (rules) => [...rules, rule("/b"), rule("/a", "DO_NOT_TRUST")]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(storePath(dataDir)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual(["trust.json"]);
    expect(JSON.parse(readFileSync(storePath(dataDir), "utf8"))).toEqual({ v: 1, folders: { "/a": "DO_NOT_TRUST", "/b": "TRUST_FOLDER" } });
    expect(readTrustStore(dataDir)).toEqual({ ok: true, rules: [rule("/a", "DO_NOT_TRUST"), rule("/b")] });
  });

  const damaged: [string, string, RegExp][] = [
    ["not JSON", "{", /not valid JSON/],
    ["not a trust store", JSON.stringify({ "/a": "TRUST_FOLDER" }), /not a trust store/],
    ["a relative path", JSON.stringify({ v: 1, folders: { "a/b": "TRUST_FOLDER" } }), /not a canonical absolute path/],
    ["a path with dot segments", JSON.stringify({ v: 1, folders: { "/a/../b": "TRUST_FOLDER" } }), /not a canonical absolute path/],
    ["an unknown level", JSON.stringify({ v: 1, folders: { "/a": "TRUST_PARENT" } }), /must be one of TRUST_FOLDER, DO_NOT_TRUST/],
    ["too many entries", JSON.stringify({ v: 1, folders: Object.fromEntries(Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => [`/f${i}`, "TRUST_FOLDER"])) }), /more than 1000 entries/],
    ["too large", JSON.stringify({ v: 1, folders: {}, pad: "x".repeat(MAX_STORE_BYTES) }), /larger than/],
  ];
  test.each(damaged)("%s is damaged, and an update leaves it as it was", async (_what, text, problem) => {
    await using dir = tempDir();
    writeFileSync(storePath(dir.path), text, { mode: 0o600 });
    const read = readTrustStore(dir.path);
    expect(read.ok).toBe(false);
    expect(read.ok ? "" : read.problem).toMatch(problem);
    expect(() => updateTrustStore(dir.path, () => [rule("/x")])).toThrow(TrustStoreError);
    expect(readFileSync(storePath(dir.path), "utf8")).toBe(text);
  });

  test("a symlink, a directory, or a store others can write is damaged", async () => {
    await using dir = tempDir();
    const real = join(dir.path, "elsewhere.json");
    writeFileSync(real, JSON.stringify({ v: 1, folders: { "/": "TRUST_FOLDER" } }), { mode: 0o600 });
    const home = join(dir.path, "h1");
    mkdirSync(home);
    symlinkSync(real, storePath(home));
    expect(readTrustStore(home)).toMatchObject({ ok: false, problem: expect.stringContaining("symbolic link") });
    const home2 = join(dir.path, "h2");
    mkdirSync(join(home2, "trust.json"), { recursive: true });
    expect(readTrustStore(home2)).toMatchObject({ ok: false, problem: expect.stringContaining("not a regular file") });
    const home3 = join(dir.path, "h3");
    mkdirSync(home3);
    writeFileSync(storePath(home3), JSON.stringify({ v: 1, folders: {} }));
    chmodSync(storePath(home3), 0o622);
    expect(readTrustStore(home3)).toMatchObject({ ok: false, problem: expect.stringContaining("writable by other users") });
  });

  test.skipIf(!AS_ROOT)("a store owned by another user is damaged", async () => {
    await using dir = tempDir();
    writeFileSync(storePath(dir.path), JSON.stringify({ v: 1, folders: { "/": "TRUST_FOLDER" } }), { mode: 0o600 });
    chownSync(storePath(dir.path), OTHER_UID, OTHER_UID);
    expect(readTrustStore(dir.path)).toMatchObject({ ok: false, problem: expect.stringContaining("owned by another user") });
  });

  test("more than MAX_ENTRIES entries are refused before anything is written", async () => {
    await using dir = tempDir();
    const many = Array.from({ length: MAX_ENTRIES }, (_, i) => rule(`/f${i}`));
    writeTrustStore(dir.path, many);
    expect(() => updateTrustStore(dir.path, (rules) => [...rules, rule("/one-more")])).toThrow(expect.objectContaining({ kind: "full" }));
    expect(readTrustStore(dir.path)).toMatchObject({ ok: true, rules: expect.any(Array) });
    expect(existsSync(join(dir.path, "trust.json"))).toBe(true);
  });
});
