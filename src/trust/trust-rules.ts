/**
 * Folder trust decisions (pure): whether a workspace is trusted, and why. A folder's decision
 * covers everything below it; where several decisions cover a workspace, the one for the deepest
 * folder wins, and between two for the same folder "do not trust" wins (the reference daemon's
 * precedence). Paths here are canonical absolute paths (the callers resolve them).
 *
 * In order:
 * 1. `security.folderTrust.enabled: false` in the host settings: the user opted out of folder
 *    trust, every workspace is trusted (`source: "disabled"`).
 * 2. `svc serve --trust-workspace`: the daemon's bound workspace is trusted for the daemon's life
 *    (`flag`), until a client revokes it.
 * 3. A damaged trust store fails closed: untrusted (`damaged`), whatever else says.
 * 4. The rules: the trust store's entries (`file`) and the host settings' `trustedFolders`
 *    (`settings`, each a TRUST_FOLDER). No rule covering the workspace: untrusted (`none`).
 */

/** The levels a trust-store entry holds, in the reference daemon's names. */
export const TRUST_LEVELS = ["TRUST_FOLDER", "DO_NOT_TRUST"] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** Where a decision came from; `file` is the trust store (`<data dir>/trust.json`). */
export type TrustSource = "disabled" | "flag" | "damaged" | "file" | "settings" | "none";

export interface TrustRule {
  readonly path: string;
  readonly level: TrustLevel;
  readonly origin: "file" | "settings";
}

export interface TrustInputs {
  /** The workspace, canonical. */
  readonly workspace: string;
  /** False only when the host settings say `security.folderTrust.enabled: false`. */
  readonly folderTrustEnabled: boolean;
  /** `--trust-workspace` applies to this workspace. */
  readonly flagGrant: boolean;
  /** The trust store's entries, or null when the store is damaged. */
  readonly stored: readonly TrustRule[] | null;
  /** The host settings' `trustedFolders`, canonical. */
  readonly settingsFolders: readonly string[];
}

export interface TrustDecision {
  readonly trusted: boolean;
  readonly source: TrustSource;
  readonly folderTrustEnabled: boolean;
  /** The level of the trust store's entry that covers the workspace (deepest, "do not trust" on a tie), or null. */
  readonly explicitTrustLevel: TrustLevel | null;
  /** The folder of the rule that decided (`file` or `settings`), else null. */
  readonly folder: string | null;
}

/** Whether `path` is `root` or lies below it (both canonical). */
export function within(path: string, root: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

const depth = (path: string) => path.split("/").filter(Boolean).length;

/** The rule that decides `workspace` among `rules`: deepest folder, "do not trust" on a tie; null when none covers it. */
export function winningRule(rules: readonly TrustRule[], workspace: string): TrustRule | null {
  let winner: TrustRule | null = null;
  let winnerDepth = -1;
  for (const rule of rules) {
    if (!within(workspace, rule.path)) continue;
    const d = depth(rule.path);
    if (d > winnerDepth || (d === winnerDepth && rule.level === "DO_NOT_TRUST" && winner?.level !== "DO_NOT_TRUST")) {
      winner = rule;
      winnerDepth = d;
    }
  }
  return winner;
}

export function decideTrust(inputs: TrustInputs): TrustDecision {
  const explicit = inputs.stored === null ? null : (winningRule(inputs.stored, inputs.workspace)?.level ?? null);
  const base = { folderTrustEnabled: inputs.folderTrustEnabled, explicitTrustLevel: explicit, folder: null };
  if (!inputs.folderTrustEnabled) return { ...base, trusted: true, source: "disabled" };
  if (inputs.flagGrant) return { ...base, trusted: true, source: "flag" };
  if (inputs.stored === null) return { ...base, trusted: false, source: "damaged" };
  const settings = inputs.settingsFolders.map((path): TrustRule => ({ path, level: "TRUST_FOLDER", origin: "settings" }));
  const winner = winningRule([...inputs.stored, ...settings], inputs.workspace);
  if (winner === null) return { ...base, trusted: false, source: "none" };
  return { ...base, trusted: winner.level === "TRUST_FOLDER", source: winner.origin, folder: winner.path };
}

/**
 * The trust store's entries after the user says `desired` about `folder`: the folder's own entry
 * becomes TRUST_FOLDER or DO_NOT_TRUST. A revocation is always written, even where nothing above
 * the folder trusts it: it is the user's decision, it outranks any trust granted above the folder
 * later, and a running daemon trusted by `--trust-workspace` sees it and narrows
 * (`workspace-trust.ts`). Entries for other folders stay as they were.
 */
export function changedRules(stored: readonly TrustRule[], folder: string, desired: "trusted" | "untrusted"): TrustRule[] {
  const others = stored.filter((rule) => rule.path !== folder);
  return [...others, { path: folder, level: desired === "trusted" ? "TRUST_FOLDER" : "DO_NOT_TRUST", origin: "file" }];
}
