/**
 * What an install leaves when its process dies mid-way (a crash, a SIGKILL): a staging copy
 * (`extensions/.staging-*`), a replaced copy not yet removed (`extensions/.old-*`) or a registry
 * download (`.extension-downloads/*`). Each install sweeps those older than LEFTOVER_AGE_MS first,
 * so they cannot pile up; a younger one may be another daemon's install in progress (daemons of
 * several workspaces share the data dir), which an install's own bounds end well within that age.
 */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { extensionsDir } from "./extension-store.ts";

/** An install older than this is no longer running. */
export const LEFTOVER_AGE_MS = 60 * 60 * 1000;
/** The folder registry downloads are unpacked into, in the data dir. */
export const DOWNLOADS_FOLDER = ".extension-downloads";

/** Removes the leftovers of installs that ended without cleaning up; anything unreadable is left alone. */
export async function sweepInstallLeftovers(dataDir: string, now = Date.now()): Promise<void> {
  const folders: Array<[string, (name: string) => boolean]> = [
    [extensionsDir(dataDir), (name) => name.startsWith(".staging-") || name.startsWith(".old-")],
    [join(dataDir, DOWNLOADS_FOLDER), () => true],
  ];
  for (const [folder, isLeftover] of folders) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter(isLeftover)) {
      const path = join(folder, name);
      const st = await stat(path).catch(() => null);
      if (st !== null && now - st.mtimeMs > LEFTOVER_AGE_MS) await rm(path, { recursive: true, force: true }).catch(() => {});
    }
  }
}
