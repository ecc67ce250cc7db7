/**
 * The session list records (`GET /workspace/:id/sessions`, `/workspaces/:workspace/sessions`,
 * `POST /sessions/catalog`, `.../sessions/live-state`): a live session is its runtime status
 * (`SessionSummary`) marked `live: true`; one that is not live is its catalog row
 * (`persistedSummary` in sessions/session-history.ts) marked `live: false`.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { sessionIdentityProperties, sessionSummaryProperties } from "./session-summary.ts";

const isArchived = t.Boolean({ description: "archived sessions are listed with `archiveState=archived` only" });

/** The organized view's members (`view=organized`, sessions/organization.ts). */
const organization = {
  groupId: t.Optional(t.Union([t.String(), t.Null()], { description: "`view=organized`: the session's group, or null" })),
  color: t.Optional(t.Union([t.String(), t.Null()], { description: "`view=organized`: the session's color (a preset), or null" })),
  isPinned: t.Optional(t.Boolean({ description: "`view=organized`: whether the session is pinned (pinned sessions lead the list)" })),
  pinnedAt: t.Optional(t.String({ description: "`view=organized`: when it was pinned (ISO 8601)" })),
  sortOrder: t.Optional(t.Union([Type.Integer(), t.Null()], { description: "`view=organized`: the session's sort order within its pin block (ascending, before sessions without one), or null" })),
};

/** A live session with its live state; `isArchived` is what its catalog row says. */
export const LiveListItem = t.Object(
  { ...sessionSummaryProperties, isArchived, live: t.Literal(true), ...organization },
  { description: "A live session: its runtime status" },
);

/** A session of the live-state route: the runtime status alone (that route reads memory only). */
export const LiveStateItem = t.Object({ ...sessionSummaryProperties, live: t.Literal(true) }, { description: "A live session: its runtime status" });

/** A persisted session that is not live, from its catalog row. */
export const PersistedListItem = t.Object(
  {
    ...sessionIdentityProperties,
    isArchived,
    live: t.Literal(false),
    persistedState: t.Union([t.Literal("closed"), t.Literal("restorable"), t.Literal("interrupted")], {
      description: "`closed`: a client closed it; `restorable`: the daemon ended it (a shutdown, the idle reaper, its workspace removed or its runtime stopped); `interrupted`: its daemon or agent went away without a word",
    }),
    clientCount: t.Literal(0),
    hasActivePrompt: t.Literal(false),
    activeWorkState: t.Literal("idle"),
    ...organization,
  },
  { description: "A persisted session that is not live" },
);

/**
 * Normalising a union keeps the members of the first variant the record matches; a record that
 * matches neither is passed on whole (nothing is lost, and the contract test reports it).
 */
export const SessionListItem = t.Union([LiveListItem, PersistedListItem], { description: "A session, told apart by `live`" });

export const SessionListReply = t.Object({
  sessions: t.Array(SessionListItem, { description: "Newest first; live sessions carry their live state (`live: true`)" }),
  nextCursor: t.Optional(t.String({ description: "present when another page follows" })),
});
