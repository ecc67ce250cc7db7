/**
 * Per-workspace objects the routes build on first use (file operations, git views, status
 * snapshots), one per served workspace. An entry is rebuilt when its id now names another scope
 * (a workspace removed and registered again), and a miss drops the entries of workspaces no longer
 * served, so the cache never holds more than the served workspaces and one more.
 */
import type { WorkspaceScope, WorkspaceScopes } from "../workspace-registry/workspace-scope.ts";

export class ScopeCache<T> {
  private readonly entries = new Map<string, { readonly scope: WorkspaceScope; readonly value: T }>();

  constructor(
    private readonly scopes: WorkspaceScopes,
    private readonly build: (scope: WorkspaceScope) => T,
  ) {}

  get(scope: WorkspaceScope): T {
    const hit = this.entries.get(scope.id);
    if (hit?.scope === scope) return hit.value;
    const served = new Set(this.scopes.scopes());
    for (const [id, entry] of this.entries) if (!served.has(entry.scope)) this.entries.delete(id);
    const value = this.build(scope);
    this.entries.set(scope.id, { scope, value });
    return value;
  }

  /** How many workspaces have an entry (for tests of the bound). */
  get size(): number {
    return this.entries.size;
  }
}

/** The roots of the other served workspaces that lie inside `scope`'s (their files are theirs, not its). */
export function nestedRoots(scopes: WorkspaceScopes, scope: WorkspaceScope): string[] {
  const prefix = scope.path.endsWith("/") ? scope.path : `${scope.path}/`;
  return scopes
    .scopes()
    .filter((other) => other !== scope && other.path.startsWith(prefix))
    .map((other) => other.path);
}
