/**
 * The two forms of a workspace route, defined once: the legacy singular form (`/file`,
 * `/workspace/git`, …) on the primary workspace (scope `legacy-primary`), and the qualified form
 * `/workspaces/:workspace/…` on the workspace the selector names (an id or an absolute path;
 * 400 `invalid_workspace`, 404 `workspace_not_found`). A route file builds its routes for a form and
 * mounts them for each; the handler takes everything (path, trust, runtime) from `form.scope(params)`.
 * Qualified forms add the tag `workspace_qualified_rest_core` to the route's own.
 */
import { t } from "elysia";
import type { WorkspaceScope, WorkspaceScopes } from "../../workspace-registry/workspace-scope.ts";
import { capability, type RouteDetail } from "../capability.ts";
import type { ErrorStatus } from "../schemas/error-statuses.ts";
import { WorkspaceSelector } from "./history-schemas.ts";

export const QUALIFIED_TAG = "workspace_qualified_rest_core";
export const QualifiedParams = t.Object({ workspace: WorkspaceSelector });

export interface WorkspaceForm {
  /** "legacy" or "qualified": names the plugins a form mounts (Elysia dedupes plugins by name). */
  readonly name: string;
  readonly qualified: boolean;
  /** The route's path in this form: `legacyBase + rest`, or `/workspaces/:workspace + rest`. */
  path(legacyBase: string, rest: string): string;
  /** The `params` hook of this form (none for the legacy form). */
  readonly hooks: { params?: typeof QualifiedParams };
  /** Error statuses the form adds to the route's (daemon-error bodies): 404 `workspace_not_found` on the qualified form. */
  readonly also: readonly ErrorStatus[];
  /** The workspace a request of this form targets. */
  scope(params: unknown): WorkspaceScope;
  /** The route's `detail`: its own tags, and the qualified tag on the qualified form. */
  detail(tags: string | readonly string[], summary: string, extra?: Omit<RouteDetail, "x-svc-capability" | "summary">): RouteDetail;
}

const tagList = (tags: string | readonly string[]) => (typeof tags === "string" ? [tags] : [...tags]);

export function workspaceForms(scopes: WorkspaceScopes): readonly [WorkspaceForm, WorkspaceForm] {
  const legacy: WorkspaceForm = {
    name: "legacy",
    qualified: false,
    path: (legacyBase, rest) => legacyBase + rest,
    hooks: {},
    also: [],
    scope: () => scopes.primaryScope,
    detail: (tags, summary, extra = {}) => (tagList(tags).length === 0 ? { ...extra, summary } : capability(tagList(tags), { ...extra, summary })),
  };
  const qualified: WorkspaceForm = {
    name: "qualified",
    qualified: true,
    path: (_legacyBase, rest) => `/workspaces/:workspace${rest}`,
    hooks: { params: QualifiedParams },
    also: [404],
    scope: (params) => scopes.resolve((params as { workspace: string }).workspace),
    detail: (tags, summary, extra = {}) => capability([...tagList(tags), QUALIFIED_TAG], { ...extra, summary: `${summary} (the named workspace)` }),
  };
  return [legacy, qualified];
}
