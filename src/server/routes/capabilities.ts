/**
 * `GET /capabilities`: the route and its schema. The document and its constant answer are
 * `capabilities-answer.ts`'s, which the front door also serves before the app is built.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { capability } from "../capability.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import type { RouteApp } from "./route-app.ts";

export const CapabilitiesDocument = t.Object({
  v: t.Literal(1),
  protocolVersions: t.Object({ current: t.String(), supported: t.Array(t.String()) }),
  version: t.String(),
  mode: t.Literal("http-bridge"),
  features: t.Array(t.String()),
  modelServices: t.Array(t.Unknown()),
  workspaceCwd: t.String(),
  transports: t.Array(t.String()),
  policy: t.Object({ permission: t.String() }),
  limits: t.Object({
    maxRegisteredWorkspaces: Type.Integer({ description: "workspaces served at once, the primary included (`--max-workspaces`)" }),
    maxPendingPromptsPerSession: Type.Integer(),
    maxSessionsPerWorkspace: Type.Integer(),
    maxTotalSessions: Type.Integer(),
    sessionRestoreTimeoutMs: Type.Integer(),
    maxSessionGroups: Type.Integer({ description: "session groups per workspace (`session_organization`)" }),
    maxSessionGroupNameChars: Type.Integer({ description: "longest session group name" }),
  }),
  workspaces: t.Array(
    t.Object({ id: t.String(), cwd: t.String(), displayName: t.Optional(t.String()), primary: t.Boolean(), trusted: t.Boolean(), removable: t.Boolean() }),
    { description: "every workspace served, the primary first" },
  ),
});

export const capabilitiesRoutes = (app: RouteApp, respond: () => Response) =>
  app.get("/capabilities", respond, {
    response: { 200: CapabilitiesDocument, ...errorResponses() },
    detail: capability("capabilities", { summary: "What this daemon supports" }),
  });
