/**
 * `security.folderTrust` in the host settings and the daemon's live trust in its workspace
 * (`WorkspaceTrust`): untrusted until trusted, the settings' folders, the opt-out, the flag, the
 * store read again when it changes, a damaged store failing closed with one warning.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../../src/config/config.ts";
import { changedRules, storePath, updateTrustStore, WorkspaceTrust } from "../../src/trust/index.ts";
import { configFixture } from "../helpers/config.ts";

function liveTrust(config: Config, warnings: string[] = []) {
  return new WorkspaceTrust({ dataDir: config.dataDir, workspace: config.workspace, folderTrust: config.settings.folderTrust, trustWorkspace: config.trustWorkspace, warn: (m) => void warnings.push(m) });
}

describe("folder trust", () => {
  test("with no decision anywhere the workspace is untrusted; an explicit opt-out (enabled: false) trusts every folder", async () => {
    await using fx = configFixture();
    expect(fx.resolve().settings.folderTrust).toEqual({ enabled: true, trustedFolders: [] });
    expect(liveTrust(fx.resolve()).decision()).toMatchObject({ trusted: false, source: "none", folderTrustEnabled: true });
    fx.writeSettings({ security: { folderTrust: { enabled: false, trustedFolders: ["/nowhere"] } } });
    expect(liveTrust(fx.resolve()).decision()).toMatchObject({ trusted: true, source: "disabled", folderTrustEnabled: false });
  });

  test("trustedFolders trust a workspace equal to or below one, through a symlinked spelling too, not a sibling", async () => {
    await using fx = configFixture();
    fx.writeSettings({ security: { folderTrust: { trustedFolders: [fx.workspace] } } });
    expect(liveTrust(fx.resolve()).decision()).toMatchObject({ trusted: true, source: "settings", folder: fx.workspace });
    fx.writeSettings({ security: { folderTrust: { enabled: true, trustedFolders: [`${fx.workspace}-other`, join(fx.workspace, "sub")] } } });
    expect(liveTrust(fx.resolve()).trusted).toBe(false);
    const alias = join(fx.home, "alias");
    symlinkSync(dirname(fx.workspace), alias);
    fx.writeSettings({ security: { folderTrust: { trustedFolders: [alias] } } });
    expect(liveTrust(fx.resolve()).trusted).toBe(true);
  });

  test("the store is read again when it changes, and listeners hear each change of state once", async () => {
    await using fx = configFixture();
    const trust = liveTrust(fx.resolve());
    const heard: boolean[] = [];
    trust.onChange((next) => void heard.push(next.trusted));
    expect(trust.trusted).toBe(false);
    updateTrustStore(fx.resolve().dataDir, () => [{ path: dirname(fx.workspace), level: "TRUST_FOLDER", origin: "file" }]);
    expect(trust.decision()).toMatchObject({ trusted: true, source: "file", explicitTrustLevel: "TRUST_FOLDER" });
    expect(trust.trusted).toBe(true);
    trust.request("untrusted");
    expect(trust.decision()).toMatchObject({ trusted: false, explicitTrustLevel: "DO_NOT_TRUST" });
    expect(heard).toEqual([true, false]);
  });

  test("--trust-workspace trusts for the daemon's life without writing anything; a revocation ends it and is saved", async () => {
    await using fx = configFixture();
    const config = fx.resolve(["--trust-workspace"]);
    const trust = liveTrust(config);
    expect(trust.decision()).toMatchObject({ trusted: true, source: "flag" });
    expect(Bun.file(storePath(config.dataDir)).size).toBe(0);
    expect(trust.request("untrusted").trusted).toBe(false);
    // A daemon started with the flag after the revocation: the flag (the user's word at its start) wins.
    expect(liveTrust(config).decision()).toMatchObject({ trusted: true, source: "flag", explicitTrustLevel: "DO_NOT_TRUST" });
    expect(trust.request("trusted")).toMatchObject({ trusted: true, explicitTrustLevel: "TRUST_FOLDER" });
  });

  test("a revocation another process writes while the daemon runs (svc trust --revoke) ends --trust-workspace's grant; other changes do not", async () => {
    await using fx = configFixture();
    const config = fx.resolve(["--trust-workspace"]);
    const trust = liveTrust(config);
    expect(trust.decision()).toMatchObject({ trusted: true, source: "flag" });
    updateTrustStore(config.dataDir, (rules) => changedRules(rules, "/elsewhere", "untrusted"));
    expect(trust.decision()).toMatchObject({ trusted: true, source: "flag" });
    updateTrustStore(config.dataDir, (rules) => changedRules(rules, config.workspace, "untrusted"));
    expect(trust.decision()).toMatchObject({ trusted: false, source: "file", explicitTrustLevel: "DO_NOT_TRUST" });
  });

  test("a damaged store fails closed over trustedFolders, warned once per problem; a request is refused and leaves it", async () => {
    await using fx = configFixture();
    fx.writeSettings({ security: { folderTrust: { trustedFolders: [fx.workspace] } } });
    const config = fx.resolve();
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(storePath(config.dataDir), "{", { mode: 0o600 });
    const warnings: string[] = [];
    const trust = liveTrust(config, warnings);
    expect(trust.decision()).toMatchObject({ trusted: false, source: "damaged" });
    trust.decision();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("trust store damaged");
    expect(() => trust.request("trusted")).toThrow(expect.objectContaining({ status: 500, code: "trusted_folders_invalid" }));
    expect(await Bun.file(storePath(config.dataDir)).text()).toBe("{");
  });

  test("with folder trust opted out a request is 409 folder_trust_disabled", async () => {
    await using fx = configFixture();
    fx.writeSettings({ security: { folderTrust: { enabled: false } } });
    expect(() => liveTrust(fx.resolve()).request("untrusted")).toThrow(expect.objectContaining({ status: 409, code: "folder_trust_disabled" }));
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

describe("--approval-mode", () => {
  test("is taken for the built-in agent, warned about and unused for another; a bad value fails boot naming the flag", async () => {
    await using fx = configFixture();
    expect(fx.resolve(["--approval-mode", "yolo"])).toMatchObject({ approvalMode: "yolo", warnings: [] });
    expect(fx.resolve(["--approval-mode", "plan", "--agent", "gemini"]).warnings).toEqual(["--approval-mode applies to the built-in agent only; --agent gemini keeps its own"]);
    expect(fx.bootError(["--approval-mode", "reckless"]).message).toMatch(/--approval-mode/);
  });
});
