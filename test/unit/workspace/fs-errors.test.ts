/** errno → filesystem error mapping: kinds and statuses, and no absolute path in any message. */
import { describe, expect, test } from "bun:test";
import { FsError } from "../../../src/errors/daemon-error.ts";
import { fromErrno } from "../../../src/workspace/fs-errors.ts";

const errno = (code: string) => Object.assign(new Error(`${code}: failed, open '/home/dev/project/src/a.ts'`), { code });

describe("fromErrno", () => {
  test.each<[string, number, string]>([
    ["ENOENT", 404, "path_not_found"],
    ["ENOTDIR", 404, "path_not_found"],
    ["EACCES", 403, "permission_denied"],
    ["EPERM", 403, "permission_denied"],
    ["ELOOP", 400, "symlink_escape"],
    ["EISDIR", 400, "parse_error"],
    ["ENAMETOOLONG", 400, "parse_error"],
    ["EEXIST", 409, "file_already_exists"],
    ["EIO", 503, "io_error"],
    ["ENOSPC", 503, "io_error"],
    ["EMFILE", 503, "resource_exhausted"],
    ["ENFILE", 503, "resource_exhausted"],
  ])("%s is %d %s, naming only the relative path", (code, status, errorKind) => {
    const err = fromErrno(errno(code), "src/a.ts");
    expect(err).toBeInstanceOf(FsError);
    expect([err.status, err.errorKind]).toEqual([status, errorKind]);
    expect(JSON.stringify(err.body())).not.toContain("/home/dev");
  });

  test("an FsError passes through; an error without an errno code is rethrown", () => {
    const fs = new FsError(409, "hash_mismatch", "x");
    expect(fromErrno(fs, "a")).toBe(fs);
    expect(() => fromErrno(new TypeError("bug"), "a")).toThrow(TypeError);
  });
  test("running out of descriptors asks the client to retry (Retry-After)", () => {
    expect(fromErrno(errno("EMFILE"), "a.txt").retryAfter).toBe(5);
    expect(fromErrno(errno("EIO"), "a.txt").retryAfter).toBeUndefined();
  });
});
