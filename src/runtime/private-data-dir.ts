/**
 * The data dir holds secrets (credentials, the trust store, journals), so it is the user's alone:
 * it is created 0700 wherever it is made, and one that already exists readable or writable by
 * others (made by hand, by an older version, by a permissive umask) is narrowed to 0700 at boot.
 * Only a directory the daemon's user owns is changed; a link, another user's folder or a chmod the
 * system refuses is left as it is and reported, never a boot failure.
 */
import { chmodSync, lstatSync } from "node:fs";

export type DataDirNarrowing =
  | { readonly kind: "narrowed"; readonly from: number }
  | { readonly kind: "left"; readonly mode: number; readonly why: string }
  | null;

/** Narrows `dataDir` to 0700 when it exists with group or other bits; null when there was nothing to do. */
export function narrowDataDir(dataDir: string): DataDirNarrowing {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dataDir);
  } catch {
    return null; // not made yet: whoever makes it makes it 0700
  }
  const mode = st.mode & 0o777;
  if (!st.isDirectory() || (mode & 0o077) === 0) return null;
  if (typeof process.getuid === "function" && st.uid !== process.getuid()) return { kind: "left", mode, why: "it belongs to another user" };
  try {
    chmodSync(dataDir, 0o700);
    return { kind: "narrowed", from: mode };
  } catch (err) {
    return { kind: "left", mode, why: (err as NodeJS.ErrnoException).code ?? "chmod failed" };
  }
}
