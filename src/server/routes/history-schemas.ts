/** Schemas shared by the session history, restore and catalog routes. */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { DEFAULT_LIST_SIZE, MAX_LIST_SIZE } from "../../sessions/session-history.ts";
import { queryInteger } from "../schemas/query-integer.ts";

const invalidSize = () => new DaemonError(400, "invalid_size", `\`size\` must be a whole number from 1 to ${MAX_LIST_SIZE}`, { maxSize: MAX_LIST_SIZE });

/** The schema `error` of `archiveState`: the value sent is named in the answer. */
const invalidArchiveState = ({ found }: { found?: unknown }) =>
  new DaemonError(400, "invalid_archive_state", "`archiveState` must be active or archived", { archiveState: (found as { archiveState?: unknown } | undefined)?.archiveState }).body();

export const SessionListQuery = t.Object({
  // Literal unions, not `t.UnionEnum`: that one defaults a missing value to its first member.
  archiveState: t.Optional(t.Union([t.Literal("active"), t.Literal("archived")], { description: "active (default) or archived", error: invalidArchiveState })),
  size: t.Optional(queryInteger(1, MAX_LIST_SIZE, `Sessions per page (default ${DEFAULT_LIST_SIZE})`, invalidSize)),
  cursor: t.Optional(t.String({ description: "`nextCursor` of the previous page" })),
});

export const WorkspaceSelector = t.String({ minLength: 1, maxLength: 4096, description: "Workspace id (16 hex digits) or absolute workspace path" });
