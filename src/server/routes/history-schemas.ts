/** Schemas shared by the session history, restore and catalog routes. */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { DEFAULT_LIST_SIZE, MAX_LIST_SIZE, type ListFilters } from "../../sessions/session-history.ts";
import { MAX_SOURCE_ID_LENGTH, SOURCE_TYPE_PATTERN, parseSessionSource } from "../../sessions/session-source.ts";
import { queryInteger } from "../schemas/query-integer.ts";

const invalidSize = () => new DaemonError(400, "invalid_size", `\`size\` must be a whole number from 1 to ${MAX_LIST_SIZE}`, { maxSize: MAX_LIST_SIZE });

/** The schema `error` of `archiveState`: the value sent is named in the answer. */
const invalidArchiveState = ({ found }: { found?: unknown }) =>
  new DaemonError(400, "invalid_archive_state", "`archiveState` must be active or archived", { archiveState: (found as { archiveState?: unknown } | undefined)?.archiveState }).body();

const invalidView = () => new DaemonError(400, "invalid_session_view", '`view` must be "organized"').body();

export const SessionListQuery = t.Object({
  // Literal unions, not `t.UnionEnum`: that one defaults a missing value to its first member.
  archiveState: t.Optional(t.Union([t.Literal("active"), t.Literal("archived")], { description: "active (default) or archived", error: invalidArchiveState })),
  size: t.Optional(queryInteger(1, MAX_LIST_SIZE, `Sessions per page (default ${DEFAULT_LIST_SIZE})`, invalidSize)),
  cursor: t.Optional(t.String({ description: "`nextCursor` of the previous page" })),
  view: t.Optional(t.Literal("organized", { description: "each session with its organization (`groupId`, `color`, `isPinned`, `sortOrder`), pinned first, then by sort order, then newest", error: invalidView })),
  group: t.Optional(t.String({ maxLength: 256, description: "with `view=organized`: `all` (default), `pinned`, `ungrouped` or a group id (404 `group_not_found` for an unknown one)" })),
  // The rules are checked by `parseSessionSource` (400 `invalid_session_source`); the schema documents them.
  sourceType: t.Optional(t.String({ description: `only sessions of this source type (${SOURCE_TYPE_PATTERN})` })),
  sourceId: t.Optional(t.String({ description: `with \`sourceType\`: only the session of this source id (1 to ${MAX_SOURCE_ID_LENGTH} characters)` })),
});

/**
 * The list's filters from its query: the source (400 `invalid_session_source`), and the organized
 * view and its group (400 `invalid_session_group_filter` for a group without the view).
 */
export function listFilters(query: { view?: "organized"; group?: string; sourceType?: string; sourceId?: string }): ListFilters & { organized: boolean; group: string } {
  const source = parseSessionSource(query.sourceType, query.sourceId, false);
  const organized = query.view === "organized";
  if (query.group !== undefined && !organized) throw new DaemonError(400, "invalid_session_group_filter", "`group` requires `view=organized`");
  return { source, organized, group: query.group ?? "all" };
}

export const WorkspaceSelector = t.String({ minLength: 1, maxLength: 4096, description: "Workspace id (16 hex digits) or absolute workspace path" });
