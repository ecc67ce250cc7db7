/**
 * The file operations of one workspace, as the routes see them: request paths in, normalized and
 * contained here, then handed to the readers, walkers and writers. Owns the per-path write locks,
 * so one instance must serve every writer of the workspace. Writes are refused while `trusted()`
 * says the workspace is not trusted (asked at each write, so a revocation counts at once); reads
 * are not. A path that lands in another workspace the daemon serves inside this one (`nested()`,
 * asked at each request) is refused like any escape (`nested-workspaces.ts`), and glob leaves
 * such workspaces' files out.
 */
import { editFile, writeFile, type EditRequest, type EditResult, type WriteRequest, type WriteResult } from "./file-writer.ts";
import { readBytes, readText, statEntry, type FileBytes, type FileStat, type TextFile, type TextWindow } from "./file-reader.ts";
import { listDirectory, type DirectoryList } from "./directory-list.ts";
import { untrustedWorkspace } from "./fs-errors.ts";
import { validateGlobPattern } from "./glob-plan.ts";
import { globSearch } from "./glob-search.ts";
import { PathLocks } from "./path-locks.ts";
import { refuseNested } from "./nested-workspaces.ts";
import { absoluteOf, isInside, normalizeRequestPath } from "./paths.ts";

export interface GlobResponse {
  readonly kind: "glob";
  readonly pattern: string;
  /** Workspace-relative cwd, "" for the root. */
  readonly cwd: string;
  readonly matches: string[];
  readonly count: number;
  readonly truncated: boolean;
  readonly durationMs: number;
}

export interface GlobRequest {
  readonly pattern: string;
  readonly cwd?: string;
  readonly maxResults: number;
  readonly includeIgnored: boolean;
}

export class WorkspaceFiles {
  private readonly locks = new PathLocks();

  /** `root` is the workspace's canonical absolute path; `nested()` the roots of the other served workspaces inside it. */
  constructor(
    readonly root: string,
    private readonly trusted: () => boolean,
    private readonly nested: () => readonly string[] = () => [],
  ) {}

  /** The normalized form of a request path, refused when it leads into a nested workspace. */
  private async contained(path: string): Promise<string> {
    const rel = normalizeRequestPath(this.root, path);
    await refuseNested(this.root, rel, this.nested());
    return rel;
  }

  async readText(path: string, window: TextWindow): Promise<TextFile> {
    return await readText(this.root, await this.contained(path), window);
  }

  async readBytes(path: string, offset: number, maxBytes: number): Promise<FileBytes> {
    return await readBytes(this.root, await this.contained(path), offset, maxBytes);
  }

  async stat(path: string): Promise<FileStat> {
    return await statEntry(this.root, await this.contained(path));
  }

  async list(path: string, includeIgnored: boolean): Promise<DirectoryList> {
    return await listDirectory(this.root, await this.contained(path), includeIgnored);
  }

  async glob(request: GlobRequest): Promise<GlobResponse> {
    const started = performance.now();
    validateGlobPattern(request.pattern);
    const cwd = request.cwd === undefined ? "" : await this.contained(request.cwd);
    const found = await globSearch(this.root, { pattern: request.pattern, cwd, maxResults: request.maxResults, includeIgnored: request.includeIgnored });
    const nested = this.nested();
    const matches = nested.length === 0 ? found.matches : found.matches.filter((m) => !nested.some((inner) => isInside(inner, absoluteOf(this.root, m))));
    const truncated = found.truncated;
    return { kind: "glob", pattern: request.pattern, cwd, matches, count: matches.length, truncated, durationMs: Math.round(performance.now() - started) };
  }

  async write(path: string, request: WriteRequest): Promise<WriteResult> {
    if (!this.trusted()) throw untrustedWorkspace();
    return await writeFile(this.root, this.locks, await this.contained(path), request);
  }

  async edit(path: string, request: EditRequest): Promise<EditResult> {
    if (!this.trusted()) throw untrustedWorkspace();
    return await editFile(this.root, this.locks, await this.contained(path), request);
  }
}
