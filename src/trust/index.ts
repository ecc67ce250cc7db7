/**
 * Folder trust (the `trust/` subsystem's one entry seam): the user's decisions about which folders
 * are trusted, kept under the data dir (`trust-store.ts`), decided by `trust-rules.ts`, and held
 * live for a daemon's bound workspace by `WorkspaceTrust`. A workspace is untrusted until the user
 * trusts it (`svc trust <dir>`, `svc serve --trust-workspace`, `POST /workspace/trust/request`, or
 * `security.folderTrust` in the host settings).
 *
 * What trust changes elsewhere: an untrusted workspace's `.svc/settings.json` may only narrow what
 * the built-in agent does unasked (`config/workspace-policy.ts`), and the daemon refuses its file
 * writes and settings controls (403 `untrusted_workspace`).
 */
export { changedRules, decideTrust, type TrustDecision, type TrustLevel, type TrustRule, type TrustSource } from "./trust-rules.ts";
export { MAX_ENTRIES, readTrustStore, storePath, TrustStoreError, updateTrustStore, validEntryPath, type StoreContents } from "./trust-store.ts";
export { WorkspaceTrust, type DesiredState, type TrustListener, type WorkspaceTrustOptions } from "./workspace-trust.ts";
