/** Schemas shared by the session history, restore and catalog routes. */
import { t } from "elysia";

/** A daemon error body: `{error, code?, …fields}`. */
export const ErrorBody = t.Object({ error: t.String(), code: t.Optional(t.String()) }, { additionalProperties: true });

export const SessionListQuery = t.Object({
  archiveState: t.Optional(t.String({ description: "active (default) or archived" })),
  size: t.Optional(t.String({ description: "Sessions per page, 1 to 500 (default 100)" })),
  cursor: t.Optional(t.String({ description: "`nextCursor` of the previous page" })),
});

export const SessionListReply = t.Object({
  sessions: t.Array(t.Record(t.String(), t.Unknown()), { description: "Newest first; live sessions carry their live state (`live: true`)" }),
  nextCursor: t.Optional(t.String()),
});

export const WorkspaceSelector = t.String({ minLength: 1, maxLength: 4096, description: "Workspace id (16 hex digits) or absolute workspace path" });
