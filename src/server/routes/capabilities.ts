/**
 * `GET /capabilities`: the capabilities document. It depends on the build, the boot configuration
 * and whether the workspace is trusted (`workspaces[].trusted`, read live), so it is rendered once
 * per trust state and served as a constant body.
 */
import { Type } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { Config } from "../../config/config.ts";
import { workspaceId } from "../../workspace/workspace-id.ts";
import { capability } from "../capability.ts";
import { apiModels } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";

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
    maxPendingPromptsPerSession: Type.Integer(),
    maxSessionsPerWorkspace: Type.Integer(),
    maxTotalSessions: Type.Integer(),
    sessionRestoreTimeoutMs: Type.Integer(),
  }),
  workspaces: t.Array(t.Object({ id: t.String(), cwd: t.String(), primary: t.Boolean(), trusted: t.Boolean() })),
});

export function capabilitiesDocument(config: Config, features: readonly string[], trusted: boolean): typeof CapabilitiesDocument.static {
  return {
    v: 1,
    protocolVersions: { current: "v1", supported: ["v1"] },
    version: config.version,
    mode: "http-bridge",
    features: [...features],
    modelServices: [],
    workspaceCwd: config.workspace,
    transports: ["rest"],
    policy: { permission: config.settings.permissionStrategy },
    limits: {
      maxPendingPromptsPerSession: config.limits.maxPendingPromptsPerSession,
      maxSessionsPerWorkspace: config.limits.maxSessions,
      maxTotalSessions: config.limits.maxTotalSessions,
      sessionRestoreTimeoutMs: config.limits.sessionRestoreTimeoutMs,
    },
    workspaces: [{ id: workspaceId(config.workspace), cwd: config.workspace, primary: true, trusted }],
  };
}

const HEADERS = { "Content-Type": "application/json; charset=utf-8" };

/**
 * The constant response, rendered on first use for each trust state: `features` is read lazily
 * because the full route table is known only once the app is assembled. Also served straight from
 * the front door.
 */
export function capabilitiesResponder(config: Config, features: () => readonly string[], trusted: () => boolean): () => Response {
  const bodies = new Map<boolean, string>();
  return () => {
    const state = trusted();
    let body = bodies.get(state);
    if (body === undefined) bodies.set(state, (body = JSON.stringify(capabilitiesDocument(config, features(), state))));
    return new Response(body, { headers: HEADERS });
  };
}

export const capabilitiesRoutes = (respond: () => Response) =>
  new Elysia({ name: "routes/capabilities" }).use(apiModels).get("/capabilities", respond, {
    response: { 200: CapabilitiesDocument, ...errorResponses() },
    detail: capability("capabilities", { summary: "What this daemon supports" }),
  });
