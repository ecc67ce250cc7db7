/**
 * Creating, updating and deleting subagent definitions (the reference daemon's agent routes): at
 * level `project` in the workspace's agents folder (`.svc/agents/`, `.qwen/agents/` when Qwen Code
 * is its agent; an existing definition is changed where it lives), at level `user` in the data
 * dir's `agents/`. The built-in `general-purpose` is read-only (403 `agent_readonly`).
 *
 * Safe against the workspace: every folder on the way is a real folder (one that is a symbolic
 * link, or that is reached through one, is refused with 409 `agent_folder_unsafe`), a file is
 * written to a new temporary file opened with O_EXCL|O_NOFOLLOW and renamed over its name (atomic:
 * a reader sees the old or the new file), and a folder holding MAX_AGENT_FILES definitions takes no
 * new one (409 `agent_limit_reached`: the reader would not list it).
 */
import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { link, lstat, mkdir, open, readdir, realpath, rename, rm, unlink } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { DaemonError } from "../../errors/daemon-error.ts";
import { fieldsOf, renderDefinition, type AgentFields, type AgentUpdates } from "./agent-draft.ts";
import { listLevel, MAX_AGENT_FILES, type AgentsWhere } from "./agent-files.ts";
import type { AgentDefinition } from "./definition.ts";

export type WritableLevel = "project" | "user";

export interface WriteWhere extends AgentsWhere {
  /** The project folder new definitions go to (`.svc/agents` or `.qwen/agents`). */
  readonly projectFolder: string;
}

const unsafe = (path: string) => new DaemonError(409, "agent_folder_unsafe", `The agents folder ${path} is, or is reached through, a symbolic link or something other than a folder; nothing was written`);
const notFound = (name: string) => new DaemonError(404, "agent_not_found", `Subagent "${name}" not found`, { name });

/** `folder` under `root` (created as needed), each step a real folder; its path. */
async function safeFolder(root: string, folder: string): Promise<string> {
  let path = root;
  for (const part of folder.split("/")) {
    path = join(path, part);
    let st = await lstat(path).catch(() => null);
    if (st === null) {
      await mkdir(path, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => (err.code === "EEXIST" ? undefined : Promise.reject(err)));
      st = await lstat(path);
    }
    if (!st.isDirectory()) throw unsafe(path);
  }
  const [realRoot, realPath] = await Promise.all([realpath(root), realpath(path)]);
  if (realPath !== join(realRoot, folder)) throw unsafe(path);
  return path;
}

/** Where a level's new definitions go: its root and folder. */
function home(where: WriteWhere, level: WritableLevel): { root: string; folder: string } {
  return level === "user" ? { root: where.dataDir, folder: "agents" } : { root: where.workspace, folder: where.projectFolder };
}

/** The root and folder (relative) of an existing definition's file, checked to be one of the level's folders. */
function homeOf(where: WriteWhere, def: AgentDefinition): { root: string; folder: string } {
  const root = def.level === "user" ? where.dataDir : where.workspace;
  const folder = relative(root, dirname(def.filePath ?? "")).split(sep).join("/");
  if (folder.startsWith("..") || folder === "" || def.filePath === undefined) throw unsafe(dirname(def.filePath ?? root));
  return { root, folder };
}

/**
 * Writes `text` as `dir/file` through a temporary file put in place whole: renamed over the file,
 * or, for a new one (`exclusive`), linked to its name, which fails if the name was taken meanwhile
 * (two creates of one name: the second is 409, not a silent overwrite).
 */
async function writeAtomic(dir: string, file: string, text: string, exclusive = false): Promise<void> {
  const tmp = join(dir, `.${file}.${randomUUID()}.tmp`);
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  try {
    if (!exclusive) return await rename(tmp, join(dir, file));
    await link(tmp, join(dir, file)).catch((err: NodeJS.ErrnoException) => {
      throw err.code === "EEXIST" ? new DaemonError(409, "agent_already_exists", `${join(dir, file)} was created meanwhile; nothing was written`) : err;
    });
  } finally {
    await rm(tmp, { force: true });
  }
}

/** The level's definition of `name`, or null. */
async function existing(where: WriteWhere, name: string, level: WritableLevel): Promise<AgentDefinition | null> {
  return (await listLevel(where, level)).agents.find((a) => a.name === name) ?? null;
}

function requireTrusted(where: WriteWhere, level: WritableLevel): void {
  if (level === "project" && !where.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
}

async function create(where: WriteWhere, level: WritableLevel, name: string, fields: AgentFields): Promise<AgentDefinition> {
  requireTrusted(where, level);
  if (await existing(where, name, level)) throw new DaemonError(409, "agent_already_exists", `Subagent "${name}" already exists at ${level} level`, { name, level });
  const { root, folder } = home(where, level);
  const dir = await safeFolder(root, folder);
  const file = `${name}.md`;
  const names = await readdir(dir);
  if (names.includes(file)) throw new DaemonError(409, "agent_already_exists", `${join(dir, file)} exists (a definition that does not read, or of another name); nothing was written`, { name, level });
  if (names.filter((n) => n.endsWith(".md")).length >= MAX_AGENT_FILES) throw new DaemonError(409, "agent_limit_reached", `${dir} holds ${MAX_AGENT_FILES} definitions, the most read; remove one first`, { name, level });
  const { text, definition } = renderDefinition(name, fields, level, join(dir, file));
  await writeAtomic(dir, file, text, true);
  return definition;
}

/** The definition of `name` at `level`, or the one in force (project over user) when no level is given. */
export async function findWritable(where: WriteWhere, name: string, level: WritableLevel | undefined): Promise<AgentDefinition | null> {
  for (const l of level ? [level] : (["project", "user"] as const)) {
    const found = await existing(where, name, l);
    if (found) return found;
  }
  return null;
}

/** Applies `updates` to the definition found; `changed: false` when they change nothing (nothing written). */
async function update(where: WriteWhere, asked: AgentDefinition, updates: AgentUpdates): Promise<{ agent: AgentDefinition; changed: boolean }> {
  if (asked.level === "builtin") throw readonly(asked);
  requireTrusted(where, asked.level);
  // Read again in this write's turn: a delete or another update may have come first.
  const found = await existing(where, asked.name, asked.level as WritableLevel);
  if (!found) throw notFound(asked.name);
  const before = fieldsOf(found);
  const after: AgentFields = { ...before, ...updates };
  if (sameFields(before, after)) return { agent: found, changed: false };
  const { root, folder } = homeOf(where, found);
  const dir = await safeFolder(root, folder);
  const file = basename(found.filePath!);
  const { text, definition } = renderDefinition(found.name, after, found.level as WritableLevel, join(dir, file), found.otherFrontMatter);
  await writeAtomic(dir, file, text);
  return { agent: definition, changed: true };
}

/** Equal fields, a member absent and one present as undefined (removed) alike. */
const sameFields = (a: AgentFields, b: AgentFields) => {
  const set = (f: AgentFields) => JSON.stringify(Object.entries(f).filter(([, v]) => v !== undefined).sort());
  return set(a) === set(b);
};

export const readonly = (d: AgentDefinition) => new DaemonError(403, "agent_readonly", `Cannot modify ${d.level}-level subagent "${d.name}"`, { name: d.name, level: d.level });

/** Deletes `name` at `level`, or at every writable level that has it; the levels removed (404 when none had it). */
async function remove(where: WriteWhere, name: string, level: WritableLevel | undefined): Promise<WritableLevel[]> {
  const removed: WritableLevel[] = [];
  for (const l of level ? [level] : (["project", "user"] as const)) {
    const found = await existing(where, name, l);
    if (!found) continue;
    requireTrusted(where, l);
    const { root, folder } = homeOf(where, found);
    const dir = await safeFolder(root, folder);
    await unlink(join(dir, basename(found.filePath!)));
    removed.push(l);
  }
  if (removed.length === 0) {
    if (name === "general-purpose") throw new DaemonError(403, "agent_readonly", `Cannot modify builtin-level subagent "${name}"`, { name, level: "builtin" });
    throw notFound(name);
  }
  return removed;
}

/**
 * The writes, one at a time in this process: a create counts the folder's files and writes in one
 * turn (so parallel creates cannot pass the bound together), and an update reads the file it
 * changes in its own turn (so it cannot bring back what a delete just removed, nor undo another update).
 */
let turn: Promise<unknown> = Promise.resolve();
function serially<T>(write: () => Promise<T>): Promise<T> {
  const run = turn.catch(() => {}).then(write);
  turn = run;
  return run;
}

export const createAgent = (where: WriteWhere, level: WritableLevel, name: string, fields: AgentFields) => serially(() => create(where, level, name, fields));
export const updateAgent = (where: WriteWhere, found: AgentDefinition, updates: AgentUpdates) => serially(() => update(where, found, updates));
export const deleteAgent = (where: WriteWhere, name: string, level: WritableLevel | undefined) => serially(() => remove(where, name, level));
