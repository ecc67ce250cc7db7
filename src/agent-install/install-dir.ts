/**
 * The agent directory `<dataDir>/agents/<name>/` that `svc agents install` works in, and what lives there:
 * - `node_modules`: a relative symbolic link to the live tree, `.install-<id>/node_modules`;
 * - `.previous`: a symbolic link naming the tree the live one replaced. That tree is kept because an
 *   agent started before the reinstall runs from it (bun hands the child its entry's real path, and
 *   agents load chunks lazily); older trees are removed at the next install. Limit: an agent that
 *   outlives two reinstalls can lose its files;
 * - `.install-<id>/`: the trees. One being staged holds INSTALLER_MARK (its installer's pid); the mark
 *   is removed once the tree is live. A tree neither live nor previous is removed by the sweep when
 *   its installer is gone (a killed install's staging) or it is a finished tree (mark removed);
 * - `package.json` with `"workspaces": []`: bun looks upward from the staging directory for a
 *   workspace root and stops at the first `package.json` with `workspaces`; this one keeps it from
 *   reaching an ancestor's (e.g. a planted `$SVC_HOME/package.json` whose glob matches the staging
 *   directory, which would make bun install outside the agent directory).
 * `agents/` and `agents/<name>/` must be real directories (lstat): a symbolic link there is refused,
 * since it would send the install elsewhere.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { AgentInstallError } from "./install-error.ts";

const TREE_PREFIX = ".install-";
const LINK_TEMP_PREFIX = ".link-";
const PREVIOUS = ".previous";
const INSTALLER_MARK = ".svc-installer";
const WORKSPACE_GUARD = `${JSON.stringify({ name: "svc-agents", private: true, workspaces: [] })}\n`;

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/** Creates `path` (mode 0700) unless it exists; either way it must then be a real directory. Returns whether it was created. */
function realDirectory(path: string): boolean {
  let created = true;
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (err) {
    if (errnoOf(err) !== "EEXIST") throw err;
    created = false;
  }
  const st = lstatSync(path);
  if (st.isSymbolicLink() || !st.isDirectory()) throw new AgentInstallError(`${path} is not a directory (${st.isSymbolicLink() ? "a symbolic link" : "another file"}); refusing the install`);
  return created;
}

/**
 * Makes `<dataDir>/agents/<name>` (the data dir is the user's and may be a link) with its workspace
 * guard; returns the directories this call created, outermost first.
 */
export function openAgentDir(dataDir: string, agentsDir: string, dir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const created = [agentsDir, dir].filter((path) => realDirectory(path));
  writeGuard(join(dir, "package.json"));
  return created;
}

/**
 * Writes the workspace guard at `file` unless it is there already (a regular file with its text).
 * It is written under a fresh name and renamed over: a planted link at its path is replaced, not followed.
 */
function writeGuard(file: string): void {
  try {
    const st = lstatSync(file);
    if (st.isFile() && st.size === Buffer.byteLength(WORKSPACE_GUARD) && readFileSync(file, "utf8") === WORKSPACE_GUARD) return;
  } catch {
    // absent: written below
  }
  const temp = `${file}-${process.pid}`;
  writeFileSync(temp, WORKSPACE_GUARD, { mode: 0o600 });
  renameSync(temp, file);
}

/** Undoes openAgentDir for a failed first install: the directories it created go, with the guard, if nothing else is there. */
export function removeCreated(created: readonly string[]): void {
  const dir = created.at(-1);
  if (dir === undefined) return;
  rmSync(join(dir, "package.json"), { force: true });
  for (const path of [...created].reverse()) {
    try {
      rmdirSync(path);
    } catch {
      return; // not empty: something else lives there
    }
  }
}

/** A fresh staging tree `.install-<id>` in `dir`, marked with this installer's pid. */
export function createStaging(dir: string): string {
  const staging = mkdtempSync(join(dir, TREE_PREFIX));
  writeFileSync(join(staging, INSTALLER_MARK), `${process.pid}\n`);
  return staging;
}

/** The pid in a tree's installer mark; null when it has none (a finished tree). */
function installerOf(tree: string): number | null {
  try {
    return Number.parseInt(readFileSync(join(tree, INSTALLER_MARK), "utf8"), 10);
  } catch {
    return null;
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoOf(err) === "EPERM";
  }
};

/** The tree names the live link and the previous link name. */
function keptTrees(dir: string): Set<string> {
  const kept = new Set<string>();
  for (const link of ["node_modules", PREVIOUS]) {
    try {
      kept.add(readlinkSync(join(dir, link)).split(/[\\/]/)[0]!);
    } catch {
      // absent, or not a link
    }
  }
  return kept;
}

/**
 * Removes the trees and temporary links nobody needs: a tree is kept while it is live or previous
 * or its installer runs; a tree with no mark and no `node_modules` is left alone (a staging whose
 * mark is being written). The installer is checked before the links are read: an installer that
 * has exited has made its switch, so the links then name its tree.
 */
export function sweepTrees(dir: string): void {
  for (const name of readdirSync(dir)) {
    const tree = name.startsWith(TREE_PREFIX) ? name : name.startsWith(LINK_TEMP_PREFIX) ? name.slice(LINK_TEMP_PREFIX.length) : null;
    if (tree === null) continue;
    const installer = installerOf(join(dir, tree));
    if (installer !== null && isAlive(installer)) continue;
    if (name !== tree) {
      rmSync(join(dir, name), { force: true });
      continue;
    }
    if (keptTrees(dir).has(tree)) continue;
    if (installer === null && !existsSync(join(dir, tree, "node_modules"))) continue;
    rmSync(join(dir, tree), { recursive: true, force: true });
  }
}

/**
 * Makes the staging tree live: `.previous` is pointed at the live tree first (so the live tree is
 * kept at every moment), then a new link is renamed over `node_modules` (atomic), then the tree's
 * installer mark is removed and older trees are swept.
 */
export function switchTo(dir: string, staging: string): void {
  const link = join(dir, "node_modules");
  const tree = basename(staging);
  let current: string | null = null;
  try {
    current = readlinkSync(link).split(/[\\/]/)[0]!;
  } catch {
    // first install (or a foreign node_modules, which the rename below refuses to replace)
  }
  if (current !== null && current !== tree) replaceLink(dir, PREVIOUS, current, tree);
  try {
    replaceLink(dir, "node_modules", join(tree, "node_modules"), tree);
  } catch (err) {
    throw new AgentInstallError(`cannot switch ${link} to the new install: ${(err as Error).message}`);
  }
  unlinkSync(join(staging, INSTALLER_MARK));
  sweepTrees(dir);
}

/** Points link `name` in `dir` at `target`: a temporary link (named after `tree`) renamed over it. */
function replaceLink(dir: string, name: string, target: string, tree: string): void {
  const temp = join(dir, `${LINK_TEMP_PREFIX}${tree}`);
  rmSync(temp, { force: true });
  symlinkSync(target, temp);
  try {
    renameSync(temp, join(dir, name));
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
