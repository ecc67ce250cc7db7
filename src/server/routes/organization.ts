/**
 * Session organization (tag `session_organization`, sessions/organization.ts): a workspace's
 * session groups, `GET|POST /workspace/:id/session-groups` and `PATCH|DELETE
 * /workspace/:id/session-groups/:groupId` (and the `/workspaces/:workspace/…` forms), and a
 * session's pin, group, color and sort order, `PATCH /session/:id/organization` and
 * `PATCH /workspaces/:workspace/session/:id/organization`. The organized list is the session
 * list's `view=organized` (catalog.ts). Bodies are checked by the service, with the reference's
 * error codes, so the schemas here only document them.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { GROUP_COLORS, MAX_GROUP_NAME_CHARS, MAX_GROUPS, SessionOrganization } from "../../sessions/organization.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { selectedForms, type SelectedForm } from "./catalog.ts";
import { SessionIdParams } from "./session-params.ts";
import { QUALIFIED_TAG, QualifiedParams } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

const TAG = "session_organization";

const Group = t.Object({
  id: t.String(),
  name: t.String({ description: `1 to ${MAX_GROUP_NAME_CHARS} characters, unique in the workspace (case-insensitively)` }),
  color: t.String({ description: `a preset (${GROUP_COLORS.join(", ")}) or #rrggbb` }),
  order: Type.Integer({ description: "groups are shown by ascending order" }),
  createdAt: t.String(),
  updatedAt: t.String(),
});
const GroupsReply = t.Object({ groups: t.Array(Group, { description: `At most ${MAX_GROUPS}, by order` }), colorOptions: t.Array(t.String()) });
const GroupBody = t.Object(
  { name: t.Optional(t.Unknown({ description: "the group's name" })), color: t.Optional(t.Unknown({ description: "a preset or #rrggbb" })), order: t.Optional(t.Unknown({ description: "a safe integer" })) },
  { additionalProperties: true },
);
const OrganizationBody = t.Object(
  {
    isPinned: t.Optional(t.Unknown({ description: "pin (true) or unpin (false)" })),
    groupId: t.Optional(t.Unknown({ description: "a group of the session's workspace, or null to ungroup" })),
    color: t.Optional(t.Unknown({ description: `a preset (${GROUP_COLORS.join(", ")}) or null` })),
    sortOrder: t.Optional(t.Unknown({ description: "a safe integer (ascending within the pin block), or null" })),
  },
  { additionalProperties: true },
);
const OrganizationReply = t.Object({
  sessionId: t.String(),
  groupId: t.Union([t.String(), t.Null()]),
  color: t.Union([t.String(), t.Null()]),
  isPinned: t.Boolean(),
  pinnedAt: t.Optional(t.String()),
  sortOrder: t.Union([Type.Integer(), t.Null()]),
  updatedAt: t.String({ description: "when the organization last changed (the epoch when never)" }),
});
const GroupParams = (form: SelectedForm) => t.Composite([form.params, t.Object({ groupId: t.String({ minLength: 1, maxLength: 256 }) })]);

/** 400 checks, 404 group or workspace, 409 name conflict, 503 no store. */
const groupErrors = errorResponses({ body: true, also: [404, 409] });

function groupRoutes(app: RouteApp, organization: SessionOrganization, form: SelectedForm) {
  const summary = (what: string) => `${what}${form.tags.length > 0 ? " (the named workspace)" : ""}`;
  return app
    .get(`${form.prefix}/session-groups`, ({ params }) => organization.listGroups(form.scope(params).path), {
      params: form.params,
      response: { 200: GroupsReply, ...errorResponses({ also: [404] }) },
      detail: capability([TAG, ...form.tags], { summary: summary("The workspace's session groups") }),
    })
    .post(
      `${form.prefix}/session-groups`,
      ({ params, body, set }) => {
        const group = organization.createGroup(form.scope(params).path, body);
        set.status = 201;
        return { group };
      },
      {
        params: form.params,
        body: GroupBody,
        response: { 201: t.Object({ group: Group }), ...groupErrors },
        detail: capability([TAG, ...form.tags], { summary: summary(`Create a session group {name, color} (at most ${MAX_GROUPS})`) }),
      },
    )
    .patch(`${form.prefix}/session-groups/:groupId`, ({ params, body }) => ({ group: organization.updateGroup(form.scope(params).path, params.groupId, body) }), {
      params: GroupParams(form),
      body: GroupBody,
      response: { 200: t.Object({ group: Group }), ...groupErrors },
      detail: capability([TAG, ...form.tags], { summary: summary("Rename, recolor or reorder a session group") }),
    })
    .delete(`${form.prefix}/session-groups/:groupId`, ({ params }) => organization.deleteGroup(form.scope(params).path, params.groupId), {
      params: GroupParams(form),
      response: { 200: t.Object({ deleted: t.Boolean({ description: "false when there was no such group" }) }), ...errorResponses({ also: [404] }) },
      detail: capability([TAG, ...form.tags], { summary: summary("Delete a session group; its sessions become ungrouped") }),
    });
}

export const organizationRoutes = (app: RouteApp, deps: AppDeps) => {
  const organization = new SessionOrganization(deps.sessions, deps.sessions.store);
  const [byId, qualified] = selectedForms(deps);
  const sessionErrors = errorResponses({ body: true, also: [404] });
  groupRoutes(app, organization, byId);
  groupRoutes(app, organization, qualified);
  return app
    .patch("/session/:id/organization", ({ params, body }) => organization.organize(params.id, body), {
      params: SessionIdParams,
      body: OrganizationBody,
      response: { 200: OrganizationReply, ...sessionErrors },
      detail: capability(TAG, { summary: "Pin, group, color or order a session (live or persisted)" }),
    })
    .patch(
      "/workspaces/:workspace/session/:id/organization",
      ({ params, body }) => organization.organize(params.id, body, deps.runtimes.resolve(params.workspace).path),
      {
        params: t.Composite([QualifiedParams, SessionIdParams]),
        body: OrganizationBody,
        response: { 200: OrganizationReply, ...sessionErrors },
        detail: capability([TAG, QUALIFIED_TAG], { summary: "Pin, group, color or order a session of the named workspace" }),
      },
    );
};
