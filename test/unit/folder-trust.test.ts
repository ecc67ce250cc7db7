/** `security.folderTrust` in settings.json and the resulting `config.workspaceTrusted`. */
import { describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { configFixture } from "../helpers/config.ts";

describe("folder trust", () => {
  test("absent or disabled: every workspace is trusted", async () => {
    await using fx = configFixture();
    expect(fx.resolve().workspaceTrusted).toBe(true);
    fx.writeSettings({ security: { folderTrust: { enabled: false, trustedFolders: ["/nowhere"] } } });
    expect(fx.resolve().workspaceTrusted).toBe(true);
  });

  test("enabled: trusted when the workspace is a trusted folder or below one", async () => {
    await using fx = configFixture();
    fx.writeSettings({ security: { folderTrust: { enabled: true, trustedFolders: [fx.workspace] } } });
    expect(fx.resolve().workspaceTrusted).toBe(true);
    fx.writeSettings({ security: { folderTrust: { enabled: true, trustedFolders: ["/nowhere", dirname(fx.workspace)] } } });
    expect(fx.resolve().workspaceTrusted).toBe(true);
  });

  test("enabled: untrusted when no folder contains it, sibling prefixes included", async () => {
    await using fx = configFixture();
    fx.writeSettings({ security: { folderTrust: { enabled: true, trustedFolders: [] } } });
    expect(fx.resolve().workspaceTrusted).toBe(false);
    fx.writeSettings({ security: { folderTrust: { enabled: true, trustedFolders: [`${fx.workspace}-other`, join(fx.workspace, "sub")] } } });
    expect(fx.resolve().workspaceTrusted).toBe(false);
  });

  test("a trusted folder given through a symlink matches the canonical workspace", async () => {
    await using fx = configFixture();
    const alias = join(fx.home, "alias");
    symlinkSync(dirname(fx.workspace), alias);
    fx.writeSettings({ security: { folderTrust: { enabled: true, trustedFolders: [alias] } } });
    expect(fx.resolve().workspaceTrusted).toBe(true);
  });

  test.each<[string, unknown, RegExp]>([
    ["security that is not an object", { security: [] }, /"security" must be an object/],
    ["folderTrust that is not an object", { security: { folderTrust: true } }, /security\.folderTrust must be an object/],
    ["enabled that is not a boolean", { security: { folderTrust: { enabled: "yes" } } }, /security\.folderTrust\.enabled/],
    ["relative trusted folders", { security: { folderTrust: { enabled: true, trustedFolders: ["projects"] } } }, /trustedFolders must be an array of absolute paths/],
    ["trusted folders that are not a list", { security: { folderTrust: { trustedFolders: "/a" } } }, /trustedFolders/],
  ])("%s fails boot naming the key", async (_what, doc, message) => {
    await using fx = configFixture();
    fx.writeSettings(doc);
    expect(fx.bootError().message).toMatch(message);
  });
});
