/**
 * `/list`: one directory's entries with their kind and ignore flag, at most LIST_ENTRY_CAP of them
 * kept. (Bun reads the whole listing on the first read of a `Dir`; that transient cost follows the
 * directory's size, what is kept and answered follows the cap.)
 */
import { stat } from "node:fs/promises";
import { openDirContained, resolveExisting } from "./contained-fs.ts";
import { LIST_ENTRY_CAP } from "./file-limits.ts";
import { fromErrno, parseError, shownPath } from "./fs-errors.ts";
import { IgnoreRules, type IgnoreMatch } from "./ignore-rules.ts";
import { joinRel } from "./paths.ts";

export type EntryKind = "file" | "directory" | "symlink" | "other";

export interface DirectoryEntry {
  readonly name: string;
  readonly kind: EntryKind;
  readonly ignored: boolean;
}

export interface DirectoryList {
  readonly kind: "list";
  readonly path: string;
  readonly entries: DirectoryEntry[];
  readonly truncated: boolean;
  readonly matchedIgnore: IgnoreMatch;
}

/** Entries examined between yields to the event loop (the scan itself is synchronous). */
export const ENTRIES_PER_YIELD = 1024;

export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function entryKind(entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind {
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "directory";
  return entry.isSymbolicLink() ? "symlink" : "other";
}

/**
 * Lists directory `rel`. Ignored entries (and every entry of an ignored directory) are left out
 * unless `includeIgnored`; entries are sorted by name.
 */
export async function listDirectory(root: string, rel: string, includeIgnored: boolean): Promise<DirectoryList> {
  const real = await resolveExisting(root, rel);
  if (!(await stat(real).catch((err) => Promise.reject(fromErrno(err, rel)))).isDirectory())
    throw parseError(`path is not a directory: ${shownPath(rel)}`, "ENOTDIR: use /file or /stat for files");

  const rules = new IgnoreRules(root);
  const matchedIgnore = rules.match(rel, true);
  const chain = rules.chainFor(rel);
  const entries: DirectoryEntry[] = [];
  let truncated = false;
  const dir = openDirContained(root, real, rel);
  try {
    for (let scanned = 1; ; scanned++) {
      if (scanned % ENTRIES_PER_YIELD === 0) await yieldToEventLoop();
      const entry = dir.readSync();
      if (entry === null) break;
      const kind = entryKind(entry);
      const ignored = matchedIgnore !== null || rules.ignores(chain, joinRel(rel, entry.name), kind === "directory");
      if (ignored && !includeIgnored) continue;
      if (entries.length === LIST_ENTRY_CAP) {
        truncated = true;
        break;
      }
      entries.push({ name: entry.name, kind, ignored });
    }
  } catch (err) {
    throw fromErrno(err, rel);
  } finally {
    dir.close();
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: "list", path: shownPath(rel), entries, truncated, matchedIgnore };
}
