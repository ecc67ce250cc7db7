/**
 * Which paths can be registered as workspaces: an absolute path (at most MAX_PATH_LENGTH
 * characters) that canonicalizes (realpath) to an existing directory the daemon user can read and
 * enter. Never `/`, the data dir, anything inside it or any folder holding it: a workspace's agent
 * may write anywhere in its folder, and the data dir holds the trust store and the session history.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";
import { DaemonError } from "../errors/daemon-error.ts";

export const MAX_PATH_LENGTH = 4096;

const invalidPath = (message: string) => new DaemonError(400, "invalid_path", message);

/** `a` is `b` or lies inside it. */
export const within = (a: string, b: string) => a === b || a.startsWith(b.endsWith(sep) ? b : b + sep);

/** The canonical path to register for `raw`, or the refusal: 400 `invalid_path`, 409 `workspace_path_reserved`. */
export function registrablePath(raw: unknown, dataDir: string): string {
  if (typeof raw !== "string" || raw.trim() === "") throw invalidPath("`cwd` must be a non-empty string");
  if (raw.length > MAX_PATH_LENGTH) throw invalidPath(`\`cwd\` exceeds the ${MAX_PATH_LENGTH}-character limit`);
  if (!isAbsolute(raw)) throw invalidPath("`cwd` must be an absolute path");
  let canonical: string;
  try {
    canonical = realpathSync(resolve(raw));
  } catch {
    throw invalidPath("Path does not exist or is not accessible");
  }
  let data: string;
  try {
    data = realpathSync(dataDir);
  } catch {
    data = resolve(dataDir);
  }
  // `/` holds every data dir, so it is refused here too.
  if (within(canonical, data) || within(data, canonical))
    throw new DaemonError(409, "workspace_path_reserved", "Workspace path is reserved: it is the filesystem root or holds, or lies in, the daemon's data directory");
  try {
    if (!statSync(canonical).isDirectory()) throw invalidPath("Path is not a directory");
    accessSync(canonical, constants.R_OK | constants.X_OK);
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    throw invalidPath("Path does not exist or is not accessible");
  }
  return canonical;
}
