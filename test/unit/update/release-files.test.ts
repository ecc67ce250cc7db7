/**
 * The pieces of `src/update/` that read a release: the release location shared with install.sh,
 * this platform's archive name, SHA256SUMS lines, and the tar reader against the archives
 * `release/tar.ts` writes.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tarArchive } from "../../../release/tar.ts";
import { parseSums } from "../../../src/update/release-check.ts";
import { archiveName, RELEASE_URL, releaseBase } from "../../../src/update/release-location.ts";
import { tarEntry } from "../../../src/update/tar-entry.ts";
import { REPO_ROOT } from "../../helpers/daemon.ts";

describe("release location", () => {
  test("is install.sh's default, one constant in two places", async () => {
    const script = await Bun.file(join(REPO_ROOT, "install.sh")).text();
    expect(/^RELEASE_URL="([^"]+)"$/m.exec(script)?.[1]).toBe(RELEASE_URL);
  });

  test("an override wins, without its trailing slash", () => {
    expect(releaseBase(null)).toBe(RELEASE_URL);
    expect(releaseBase("http://127.0.0.1:9/r//")).toBe("http://127.0.0.1:9/r");
  });

  test("archive names follow release.ts's targets; other platforms have none", () => {
    expect(archiveName("linux", "x64")).toBe("svc-linux-x64.tar.gz");
    expect(archiveName("darwin", "arm64")).toBe("svc-darwin-arm64.tar.gz");
    expect(archiveName("win32", "x64")).toBeNull();
    expect(archiveName("linux", "ia32")).toBeNull();
  });
});

describe("SHA256SUMS", () => {
  test("reads sha256sum lines (text and binary mode) and skips anything else", () => {
    const a = "a".repeat(64);
    const b = "b".repeat(64);
    expect(parseSums(`${a}  svc-linux-x64.tar.gz\n${b} *install.sh\nnot a line\n${"c".repeat(63)}  short\n`)).toEqual(
      new Map([["svc-linux-x64.tar.gz", a], ["install.sh", b]]),
    );
  });
});

describe("tarEntry", () => {
  const data = new TextEncoder().encode("#!/bin/sh\necho hi\n".repeat(100));
  const archive = tarArchive([{ name: "README", mode: 0o644, data: new Uint8Array(3) }, { name: "svc", mode: 0o755, data }], 1_700_000_000);

  test("finds the named file in release/tar.ts's archives", () => {
    expect(tarEntry(archive, "svc")).toEqual(data);
    expect(tarEntry(archive, "nope")).toBeNull();
  });

  test("refuses a damaged header and an entry longer than the archive", () => {
    const damaged = new Uint8Array(archive);
    damaged[0] = damaged[0]! ^ 1;
    expect(() => tarEntry(damaged, "svc")).toThrow("checksum");
    expect(() => tarEntry(archive.subarray(0, 512 * 3), "svc")).toThrow("past the archive's end");
  });
});
