/**
 * The daemon's live trust in its bound workspace: the trust store (read again whenever the file
 * changes, so a `svc trust` run beside the daemon counts at once), the host settings'
 * `security.folderTrust` (read at boot) and `--trust-workspace` (this daemon's life only, never
 * written anywhere). Every check asks `decision()`; nothing keeps a boot-time answer.
 *
 * A change (a client's request, or the store changed by another process) is told to the
 * `onChange` listeners once the trust state differs from the last one they were told. A store
 * changed by another process is noticed on the next check, or by the watch (`watch()`, one `lstat`
 * of the store per WATCH_INTERVAL_MS) when nothing checks.
 */
import { canonicalFolders } from "../config/canonical-folder.ts";
import type { FolderTrustSettings } from "../config/settings.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import { changedRules, decideTrust, winningRule, type TrustDecision } from "./trust-rules.ts";
import { readTrustStore, storeVersion, TrustStoreError, updateTrustStore, type StoreContents } from "./trust-store.ts";

/** How often the watch looks at the store for changes made by another process. */
export const WATCH_INTERVAL_MS = 1000;

export type DesiredState = "trusted" | "untrusted";
export type TrustListener = (next: TrustDecision, previous: TrustDecision) => void;

export interface WorkspaceTrustOptions {
  readonly dataDir: string;
  /** The bound workspace, canonical. */
  readonly workspace: string;
  readonly folderTrust: FolderTrustSettings;
  /** `--trust-workspace`. */
  readonly trustWorkspace: boolean;
  /** A damaged store is reported here, once per distinct problem. */
  readonly warn: (message: string) => void;
}

export class WorkspaceTrust {
  private flagGrant: boolean;
  private readonly settingsFolders: readonly string[];
  /**
   * The store as last read, under its version, and the decision made from it. The flag's grant
   * changes only with a write of the store (`request`, or a revocation by another process), which
   * gives the store a new version.
   */
  private store: { version: string; contents: StoreContents; decision: TrustDecision } | null = null;
  private reported: string | null = null;
  private readonly listeners = new Set<TrustListener>();
  private told: TrustDecision | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: WorkspaceTrustOptions) {
    this.flagGrant = options.trustWorkspace;
    this.settingsFolders = canonicalFolders(options.folderTrust.trustedFolders);
    this.told = this.evaluate();
  }

  get workspace(): string {
    return this.options.workspace;
  }

  get trusted(): boolean {
    return this.decision().trusted;
  }

  /** Why the trust store is damaged (it then decides nothing: untrusted), or null. */
  storeProblem(): string | null {
    this.evaluate();
    const contents = this.store?.contents;
    return contents && !contents.ok ? contents.problem : null;
  }

  /** The decision now; tells the listeners when it changed since they were last told. */
  decision(): TrustDecision {
    const next = this.evaluate();
    const previous = this.told;
    if (previous !== null && previous.trusted !== next.trusted) {
      this.told = next;
      for (const listener of this.listeners) listener(next, previous);
    }
    return next;
  }

  /**
   * Records the user's decision for the bound workspace in the trust store (untrusted also ends
   * `--trust-workspace`'s grant) and answers the decision that results. 409
   * `folder_trust_disabled` when the host settings opted out of folder trust (every folder is
   * trusted, there is nothing to decide); 500 `trusted_folders_invalid` when the store is damaged
   * (it is left as it is); 500 `trust_store_unwritable`; 409 `trust_store_full`.
   */
  request(desired: DesiredState): TrustDecision {
    if (!this.options.folderTrust.enabled)
      throw new DaemonError(409, "folder_trust_disabled", "Folder trust is disabled for this workspace", { hint: "security.folderTrust.enabled is false in the host settings: every folder is trusted" });
    try {
      updateTrustStore(this.options.dataDir, (rules) => changedRules(rules, this.options.workspace, desired));
    } catch (err) {
      if (!(err instanceof TrustStoreError)) throw err;
      if (err.kind === "damaged") throw new DaemonError(500, "trusted_folders_invalid", "Failed to load trusted folders", { hint: err.message });
      if (err.kind === "full") throw new DaemonError(409, "trust_store_full", err.message);
      throw new DaemonError(500, "trust_store_unwritable", err.message);
    }
    if (desired === "untrusted") this.flagGrant = false;
    return this.decision();
  }

  /** Calls `listener` with each later change of the trust state; returns the unsubscribe. */
  onChange(listener: TrustListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts looking at the store for outside changes (unref'd: it never keeps the process alive). */
  watch(intervalMs = WATCH_INTERVAL_MS): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.decision(), intervalMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  /** The decision for the store as it is now: one `lstat`, and a read and a decision only when the store changed. */
  private evaluate(): TrustDecision {
    const { dataDir, workspace, folderTrust } = this.options;
    const version = storeVersion(dataDir);
    if (this.store?.version === version) return this.store.decision;
    const contents = readTrustStore(dataDir);
    if (!contents.ok && contents.problem !== this.reported) {
      this.reported = contents.problem;
      this.options.warn(`trust store damaged: ${contents.problem}; every folder it would decide is untrusted until it is fixed or removed`);
    }
    if (contents.ok) this.reported = null;
    // A revocation written while this daemon runs (`svc trust --revoke`) also ends `--trust-workspace`'s grant.
    if (this.flagGrant && this.store !== null && contents.ok && this.store.decision.explicitTrustLevel !== "DO_NOT_TRUST" && winningRule(contents.rules, workspace)?.level === "DO_NOT_TRUST")
      this.flagGrant = false;
    const decision = decideTrust({ workspace, folderTrustEnabled: folderTrust.enabled, flagGrant: this.flagGrant, stored: contents.ok ? contents.rules : null, settingsFolders: this.settingsFolders });
    this.store = { version, contents, decision };
    return decision;
  }
}
