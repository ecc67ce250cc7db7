/**
 * The error vocabulary of the workspace file routes (`{errorKind, error, hint?, status}` bodies) and
 * the mapping from errno codes to it. Messages name workspace-relative paths only: an errno's own
 * message carries the absolute path, so it never reaches a body, and a path the caller sent is
 * never echoed back when it was refused (it may be an absolute path outside the workspace).
 */
import { FsError } from "../errors/daemon-error.ts";

/** How a workspace-relative path appears in messages (`.` is the workspace root). */
export const shownPath = (rel: string) => (rel === "" ? "." : rel);

export const outsideWorkspace = (why: string) =>
  new FsError(400, "path_outside_workspace", `path is outside the workspace: ${why}`, "use a path relative to the workspace root");

export const symlinkEscape = (rel: string) =>
  new FsError(400, "symlink_escape", `${shownPath(rel)} leads through a symbolic link to outside the workspace`);

export const parseError = (message: string, hint?: string) => new FsError(400, "parse_error", message, hint);

export const pathNotFound = (rel: string) => new FsError(404, "path_not_found", `path not found: ${shownPath(rel)}`);

export const notRegularFile = (rel: string) =>
  parseError(`path is not a regular file: ${shownPath(rel)}`, "use /list for directories and /stat for other entries");

export const alreadyExists = (rel: string) =>
  new FsError(409, "file_already_exists", `file already exists: ${shownPath(rel)}`, "use mode replace with the file's current hash");

export const hashMismatch = (expected: string, found: string) =>
  new FsError(409, "hash_mismatch", `expected ${expected}, found ${found}`, "re-read the file and retry with the latest hash");

export const untrustedWorkspace = () =>
  new FsError(403, "untrusted_workspace", "Workspace is not trusted.", "trust the folder first: svc trust <dir>, svc serve --trust-workspace, or POST /workspace/trust/request");

/** Maps an error from a filesystem call on `rel`; errors that are not errno failures are rethrown. */
/** Retry-After (seconds) on a filesystem answer refused for want of descriptors or memory. */
const RESOURCE_RETRY_AFTER_SECONDS = 5;

export function fromErrno(err: unknown, rel: string): FsError {
  if (err instanceof FsError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string") throw err;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return pathNotFound(rel);
    case "EACCES":
    case "EPERM":
      return new FsError(403, "permission_denied", `permission denied: ${shownPath(rel)}`);
    case "ELOOP":
      // O_NOFOLLOW met a symlink where a resolved path had none, or a link cycle.
      return symlinkEscape(rel);
    case "EISDIR":
      return notRegularFile(rel);
    case "ENAMETOOLONG":
      return parseError("path is too long");
    case "EEXIST":
      return alreadyExists(rel);
    case "EMFILE":
    case "ENFILE":
    case "ENOMEM":
    case "EAGAIN":
      // The daemon is short of descriptors or memory, not the file at fault: a transient 503.
      return new FsError(503, "resource_exhausted", `the daemon is out of resources (${code}) reading ${shownPath(rel)}`, "retry shortly", RESOURCE_RETRY_AFTER_SECONDS);
    default:
      return new FsError(503, "io_error", `I/O error (${code}) on ${shownPath(rel)}`, "retry; if it persists, check the disk and the daemon log");
  }
}
