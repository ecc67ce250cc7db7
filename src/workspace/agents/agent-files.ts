/**
 * Where subagent definitions are read: the workspace's `.svc/agents/` then `.qwen/agents/` (the
 * reference's folder) at level `project`, only in a trusted workspace; the data dir's `agents/` at
 * level `user`; and the built-in `general-purpose`. A name defined twice keeps the first in that
 * order (project over user over built-in). Untrusted input: at most MAX_AGENT_FILES `.md` files a
 * folder, each at most MAX_AGENT_FILE_BYTES, opened with O_NOFOLLOW (a link is skipped), in a folder
 * reached through no link (one is reported and skipped); a file
 * that cannot be read or parsed is reported in `errors` and the others are still listed.
 */
import { constants } from "node:fs";
import { lstat, open, readdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { DefinitionError, GENERAL_PURPOSE, parseDefinition, type AgentDefinition, type AgentLevel } from "./definition.ts";

export const MAX_AGENT_FILES = 64;
export const MAX_AGENT_FILE_BYTES = 64 * 1024;
export const PROJECT_AGENT_DIRS = [".svc/agents", ".qwen/agents"] as const;

export interface AgentsWhere {
  readonly workspace: string;
  readonly dataDir: string;
  readonly trusted: boolean;
}

export interface AgentProblem {
  readonly filePath: string;
  readonly error: string;
}

export interface AgentListing {
  readonly agents: AgentDefinition[];
  readonly errors: AgentProblem[];
  /** The project's definitions were not read (untrusted workspace). */
  readonly projectSkipped: boolean;
}

async function readBounded(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new DefinitionError("not a regular file");
    if (st.size > MAX_AGENT_FILE_BYTES) throw new DefinitionError(`larger than ${MAX_AGENT_FILE_BYTES} bytes`);
    const buf = Buffer.alloc(MAX_AGENT_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_AGENT_FILE_BYTES) throw new DefinitionError(`larger than ${MAX_AGENT_FILE_BYTES} bytes`);
    return new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

async function readFolder(root: string, folder: string, level: AgentLevel, errors: AgentProblem[]): Promise<AgentDefinition[]> {
  const dir = join(root, folder);
  const st = await lstat(dir).catch(() => null);
  if (!st || !st.isDirectory()) return [];
  // No link on the way either (a checkout's `.qwen` linked to a folder elsewhere): the folder's real
  // path is its path under the root's real path.
  const [realRoot, realDir] = await Promise.all([realpath(root).catch(() => null), realpath(dir).catch(() => null)]);
  if (realRoot === null || realDir !== join(realRoot, folder)) {
    errors.push({ filePath: dir, error: "reached through a symbolic link (not followed)" });
    return [];
  }
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".md")).sort();
  } catch (err) {
    errors.push({ filePath: dir, error: err instanceof Error ? err.message : String(err) });
    return [];
  }
  if (names.length > MAX_AGENT_FILES) {
    errors.push({ filePath: dir, error: `more than ${MAX_AGENT_FILES} definition files; only the first ${MAX_AGENT_FILES} by name are read` });
    names = names.slice(0, MAX_AGENT_FILES);
  }
  const out: AgentDefinition[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      out.push(parseDefinition(await readBounded(path), level, path));
    } catch (err) {
      const message = err instanceof DefinitionError ? err.message : err instanceof TypeError ? "not valid UTF-8" : (err as NodeJS.ErrnoException).code === "ELOOP" ? "a symbolic link (not followed)" : err instanceof Error ? err.message : String(err);
      errors.push({ filePath: path, error: message });
    }
  }
  return out;
}

export async function listAgents(where: AgentsWhere): Promise<AgentListing> {
  const errors: AgentProblem[] = [];
  const found: AgentDefinition[] = [];
  if (where.trusted) for (const dir of PROJECT_AGENT_DIRS) found.push(...(await readFolder(where.workspace, dir, "project", errors)));
  found.push(...(await readFolder(where.dataDir, "agents", "user", errors)));
  found.push(GENERAL_PURPOSE);
  const seen = new Set<string>();
  const agents = found.filter((a) => !seen.has(a.name) && (seen.add(a.name), true));
  return { agents, errors, projectSkipped: !where.trusted };
}

/** The definitions of one level (`project`: both folders, first wins; `user`), with the files that could not be read. */
export async function listLevel(where: AgentsWhere, level: "project" | "user"): Promise<{ agents: AgentDefinition[]; errors: AgentProblem[] }> {
  const errors: AgentProblem[] = [];
  const found: AgentDefinition[] = [];
  if (level === "user") found.push(...(await readFolder(where.dataDir, "agents", "user", errors)));
  else if (where.trusted) for (const dir of PROJECT_AGENT_DIRS) found.push(...(await readFolder(where.workspace, dir, "project", errors)));
  const seen = new Set<string>();
  return { agents: found.filter((a) => !seen.has(a.name) && (seen.add(a.name), true)), errors };
}

/** The definition in force for `name` (the first in the listing order), or null. */
export async function loadAgent(where: AgentsWhere, name: string): Promise<AgentDefinition | null> {
  const { agents } = await listAgents(where);
  return agents.find((a) => a.name === name) ?? null;
}
