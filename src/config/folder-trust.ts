/**
 * Folder trust: with `security.folderTrust.enabled`, a workspace is trusted only when it is one of
 * the trusted folders or lies below one. Disabled (the default), every workspace is trusted.
 * An untrusted workspace stays readable; the daemon refuses to write into it.
 */
import { realpathSync } from "node:fs";
import type { FolderTrustSettings } from "./settings.ts";

/** A trusted folder's canonical path, so a symlinked spelling matches the canonical workspace. */
function canonical(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder; // a folder that does not exist cannot contain the (existing) workspace anyway
  }
}

/** `workspace` must already be canonical. */
export function isWorkspaceTrusted(trust: FolderTrustSettings, workspace: string): boolean {
  if (!trust.enabled) return true;
  return trust.trustedFolders.some((folder) => {
    const root = canonical(folder);
    return workspace === root || workspace.startsWith(root.endsWith("/") ? root : `${root}/`);
  });
}
