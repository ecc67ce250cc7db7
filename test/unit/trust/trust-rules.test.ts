/** Folder trust decisions (pure): precedence of the opt-out, the flag, a damaged store and the rules; how a decision changes the store's entries. */
import { describe, expect, test } from "bun:test";
import { changedRules, decideTrust, type TrustRule } from "../../../src/trust/index.ts";
import { within } from "../../../src/trust/trust-rules.ts";

const file = (path: string, level: TrustRule["level"] = "TRUST_FOLDER"): TrustRule => ({ path, level, origin: "file" });
const base = { workspace: "/home/me/proj", folderTrustEnabled: true, flagGrant: false, stored: [] as TrustRule[], settingsFolders: [] as string[] };

describe("decideTrust", () => {
  test("without any decision a workspace is untrusted", () => {
    expect(decideTrust(base)).toEqual({ trusted: false, source: "none", folderTrustEnabled: true, explicitTrustLevel: null, folder: null });
  });

  test("a folder's decision covers the folder and everything below it, not a sibling sharing its prefix", () => {
    expect(decideTrust({ ...base, stored: [file("/home/me")] })).toMatchObject({ trusted: true, source: "file", folder: "/home/me", explicitTrustLevel: "TRUST_FOLDER" });
    expect(decideTrust({ ...base, stored: [file("/home/me/proj")] }).trusted).toBe(true);
    expect(decideTrust({ ...base, stored: [file("/home/me/pro"), file("/home/me/proj/sub")] }).trusted).toBe(false);
    expect(decideTrust({ ...base, stored: [file("/")] }).trusted).toBe(true);
    expect([within("/a/b", "/a"), within("/ab", "/a"), within("/x", "/")]).toEqual([true, false, true]);
  });

  test("the deepest folder wins; between two for the same folder do-not-trust wins", () => {
    expect(decideTrust({ ...base, stored: [file("/home"), file("/home/me", "DO_NOT_TRUST")] })).toMatchObject({ trusted: false, source: "file", explicitTrustLevel: "DO_NOT_TRUST" });
    expect(decideTrust({ ...base, stored: [file("/home", "DO_NOT_TRUST"), file("/home/me/proj")] }).trusted).toBe(true);
    expect(decideTrust({ ...base, stored: [file("/home/me", "DO_NOT_TRUST")], settingsFolders: ["/home/me"] }).trusted).toBe(false);
    expect(decideTrust({ ...base, stored: [file("/home/me", "DO_NOT_TRUST")], settingsFolders: ["/home/me/proj"] })).toMatchObject({ trusted: true, source: "settings", explicitTrustLevel: "DO_NOT_TRUST" });
  });

  test("the host settings' opt-out trusts everything; the flag trusts; a damaged store fails closed over the settings' folders", () => {
    expect(decideTrust({ ...base, folderTrustEnabled: false, stored: null })).toMatchObject({ trusted: true, source: "disabled", folderTrustEnabled: false });
    expect(decideTrust({ ...base, flagGrant: true, stored: [file("/home/me/proj", "DO_NOT_TRUST")] })).toMatchObject({ trusted: true, source: "flag" });
    expect(decideTrust({ ...base, stored: null, settingsFolders: ["/home"] })).toMatchObject({ trusted: false, source: "damaged" });
  });
});

describe("changedRules", () => {
  test("trusting replaces the folder's own entry and keeps the others", () => {
    expect(changedRules([file("/a", "DO_NOT_TRUST"), file("/b")], "/a", "trusted")).toEqual([file("/b"), file("/a")]);
  });

  test("revoking always writes the folder's do-not-trust entry (the user's decision outranks any trust above), keeping the others", () => {
    expect(changedRules([file("/home/me/proj"), file("/b")], "/home/me/proj", "untrusted")).toEqual([file("/b"), file("/home/me/proj", "DO_NOT_TRUST")]);
    expect(changedRules([file("/home")], "/home/me/proj", "untrusted")).toEqual([file("/home"), file("/home/me/proj", "DO_NOT_TRUST")]);
    expect(changedRules([], "/home/me/proj", "untrusted")).toEqual([file("/home/me/proj", "DO_NOT_TRUST")]);
  });
});
