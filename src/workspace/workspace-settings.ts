/**
 * Rewrites the workspace settings file an agent reads (`<workspace>/<dir>/settings.json`: `.qwen`
 * for Qwen Code, `.svc` for the built-in agent), or the host's (`<data dir>/settings.json`, with the
 * data dir's parent as root), one change at a time:
 * - the file is read through the settings directory's verified descriptor (`contained-fs.ts`), so
 *   a directory or file swapped for a symlink cannot lead the write outside the workspace;
 * - an existing file that is not a JSON object (comments included: Qwen Code accepts JSONC, this
 *   writer does not) or is larger than MAX_SETTINGS_BYTES is refused and left as it was, never
 *   clobbered; every other key is kept;
 * - the new text goes to a temp file in the same directory, flushed, then renamed over the old
 *   one: a reader sees the old file or the new one, never half of it;
 * - a settings file that is itself a symlink is refused, wherever it points: the writer never follows one;
 * - changes to one workspace are serialized, so two toggles at once both land; a change may hold
 *   its turn while the agent is told (`confirm`), so the file is only written once the agent took it.
 */
import { constants } from "node:fs";
import { lstat, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { MAX_SETTINGS_BYTES } from "../config/settings-file.ts";
import { DaemonError, FsError } from "../errors/daemon-error.ts";
import { ensureDirectory, openContained, openVerifiedDir, type VerifiedDir } from "./contained-fs.ts";
import { readAt } from "./file-reader.ts";

export type SettingsDoc = Record<string, unknown>;

/** The settings directory of each agent family that reads workspace settings. */
export type SettingsDir = ".qwen" | ".svc";
/** The data dir's last segment, for the host settings (`<data dir>/settings.json`, root its parent). */
export type HostSettingsDir = { readonly host: string };

const dirName = (dir: SettingsDir | HostSettingsDir) => (typeof dir === "string" ? dir : dir.host);

/** A new settings file is readable and writable by the owner only; a rewritten one keeps its mode. */
const NEW_FILE_MODE = 0o600;
const FILE = "settings.json";

/** The workspace-relative path of `dir`'s settings file. */
export const settingsPath = (dir: SettingsDir | HostSettingsDir) => `${dirName(dir)}/${FILE}`;

export const invalidSettings = (rel: string, why: string) =>
  new DaemonError(409, "invalid_workspace_settings", `${rel} ${why}; fix or remove it, it was left unchanged`, { path: rel });

/** A filesystem refusal (symlink escape, permission) as a daemon error naming the file. */
function unwritable(err: unknown, rel: string): unknown {
  if (!(err instanceof FsError)) return err;
  return new DaemonError(err.status, "workspace_settings_unwritable", `${rel}: ${err.message}`, { path: rel, errorKind: err.errorKind });
}

const isPlainObject = (value: unknown): value is SettingsDoc => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * 400 for a settings file that is a symlink: the open (O_NOFOLLOW) fails as if it escaped the
 * workspace, but it may point inside; either way the writer does not follow it, and says so.
 */
const symlinked = (rel: string) =>
  new DaemonError(400, "workspace_settings_unwritable", `${rel} is a symbolic link, which the settings writer never follows; replace it with the file itself`, {
    path: rel,
    errorKind: "symlink_not_followed",
  });

/** The current document and file mode, or an empty document when there is no file. */
async function readDoc(root: string, dir: VerifiedDir, rel: string): Promise<{ doc: SettingsDoc; mode: number }> {
  let handle;
  try {
    handle = await openContained(root, dir.entry(FILE), rel, constants.O_RDONLY);
  } catch (err) {
    if (err instanceof FsError && err.errorKind === "path_not_found") return { doc: {}, mode: NEW_FILE_MODE };
    if (err instanceof FsError && err.errorKind === "symlink_escape" && (await lstat(dir.entry(FILE)).catch(() => null))?.isSymbolicLink()) throw symlinked(rel);
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw invalidSettings(rel, "is not a regular file");
    if (st.size > MAX_SETTINGS_BYTES) throw invalidSettings(rel, "is larger than 1 MiB");
    const text = (await readAt(handle, 0, st.size)).toString("utf8").replace(/^\uFEFF/, "");
    let doc: unknown;
    try {
      doc = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw invalidSettings(rel, "is not valid JSON");
    }
    if (!isPlainObject(doc)) throw invalidSettings(rel, "is not a JSON object");
    return { doc, mode: st.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

async function writeDoc(root: string, dir: VerifiedDir, rel: string, doc: SettingsDoc, mode: number): Promise<void> {
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  // Every reader (the daemon's boot among them) refuses a larger file: it is never written.
  if (Buffer.byteLength(text, "utf8") > MAX_SETTINGS_BYTES)
    throw new DaemonError(413, "settings_too_large", `${rel} would be larger than 1 MiB; nothing was written`, { path: rel, limit: MAX_SETTINGS_BYTES });
  const temp = dir.entry(`.svc-settings-${crypto.getRandomValues(Buffer.alloc(8)).toString("hex")}.tmp`);
  const handle = await openContained(root, temp, rel, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, NEW_FILE_MODE);
  try {
    if (mode !== NEW_FILE_MODE) await handle.chmod(mode);
    await handle.writeFile(text);
    await handle.datasync();
    await handle.close();
    await rename(temp, dir.entry(FILE));
  } catch (err) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/**
 * The change in progress per settings file (by absolute path), shared by every writer in the
 * process: two writers of one file (the tool toggles' and the MCP servers') take turns, so neither
 * writes over the other's change.
 */
const queue = new Map<string, Promise<unknown>>();

export class WorkspaceSettings {
  constructor(private readonly root: string) {}

  /**
   * Applies `change` to `<dir>/settings.json` (created if missing) and writes it back atomically;
   * resolves with what `change` returned. `change` may throw to refuse (nothing is written), and so
   * may `confirm`, awaited with that result after the change and before the write, still in this
   * file's turn (no other change lands in between).
   */
  update<T>(dir: SettingsDir | HostSettingsDir, change: (doc: SettingsDoc) => T, confirm?: (result: T) => Promise<void>): Promise<T> {
    const rel = settingsPath(dir);
    const key = join(this.root, rel);
    const previous = queue.get(key) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.apply(dirName(dir), rel, change, confirm));
    queue.set(key, run);
    // The map holds at most one entry per settings file: the last change, dropped once done.
    void run.catch(() => {}).then(() => queue.get(key) === run && queue.delete(key));
    return run;
  }

  private async apply<T>(name: string, rel: string, change: (doc: SettingsDoc) => T, confirm?: (result: T) => Promise<void>): Promise<T> {
    try {
      const dir = openVerifiedDir(this.root, await ensureDirectory(this.root, name), name);
      try {
        const { doc, mode } = await readDoc(this.root, dir, rel);
        const result = change(doc);
        if (confirm) await confirm(result);
        await writeDoc(this.root, dir, rel, doc, mode);
        return result;
      } finally {
        dir.close();
      }
    } catch (err) {
      throw unwritable(err, rel);
    }
  }
}

/**
 * The object member `key` of `doc`, created when absent; a member that is there but not an object
 * is refused (it is the operator's, and this writer does not know what it means).
 */
export function objectMember(doc: SettingsDoc, key: string, rel: string): SettingsDoc {
  const value = doc[key];
  if (value === undefined) return (doc[key] = {});
  if (!isPlainObject(value)) throw invalidSettings(rel, `has a \`${key}\` that is not an object`);
  return value;
}

/**
 * The names of settings list `key` (`tools.disabled`, `skills.disabled`): none when absent; a
 * member that is there but not an array of strings is refused, never rewritten (it is the
 * operator's, and dropping what this writer does not understand would lose it).
 */
export function nameList(value: unknown, key: string, rel: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw invalidSettings(rel, `has a \`${key}\` that is not a list of names`);
  return [...value];
}

/** `names` with `name` added (enabled false) or removed (true), sorted. */
export function toggledList(names: readonly string[], name: string, enabled: boolean): string[] {
  const set = new Set(names);
  if (enabled) set.delete(name);
  else set.add(name);
  return [...set].sort();
}
