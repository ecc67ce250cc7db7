/** The installer's lockfile check: every package must carry a sha512 integrity (agent-install/install.ts). */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyLockfile } from "../../../src/agent-install/install.ts";
import { AgentInstallError } from "../../../src/agent-install/install-error.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const SHA = `sha512-${"A".repeat(86)}==`;
const lock = (packages: Record<string, unknown>) => `{\n  "lockfileVersion": 1,\n  "workspaces": { "": { "name": "x" } },\n  "packages": ${JSON.stringify(packages)},\n}\n`;

describe("verifyLockfile", () => {
  test.each([
    ["every entry with a sha512 integrity", { a: ["a@1.0.0", "", {}, SHA], b: ["b@2.0.0", "", {}, SHA] }, null],
    ["an entry without integrity", { a: ["a@1.0.0", "", {}, SHA], b: ["b@2.0.0", "", {}] }, "the lockfile entry b has no sha512 integrity"],
    ["an entry with a sha1 integrity", { a: ["a@1.0.0", "", {}, "sha1-abc="] }, "the lockfile entry a has no sha512 integrity"],
    ["an entry that is not an array", { a: { version: "1.0.0" } }, "the lockfile entry a has no sha512 integrity"],
    ["no package at all", {}, "the lockfile records no package"],
  ])("%s", async (_what, packages, error) => {
    await using dir = tempDir("svc-lock-");
    const file = join(dir.path, "bun.lock");
    writeFileSync(file, lock(packages));
    if (error === null) expect(() => verifyLockfile(file)).not.toThrow();
    else expect(() => verifyLockfile(file)).toThrow(new AgentInstallError(`${error}${error.includes("entry") ? "; refusing the install" : ""}`));
  });

  test("a missing or malformed lockfile is refused", async () => {
    await using dir = tempDir("svc-lock-");
    expect(() => verifyLockfile(join(dir.path, "bun.lock"))).toThrow(AgentInstallError);
    writeFileSync(join(dir.path, "bun.lock"), "{ nope");
    expect(() => verifyLockfile(join(dir.path, "bun.lock"))).toThrow(AgentInstallError);
  });
});
