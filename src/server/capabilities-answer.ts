/**
 * The capabilities document and its constant answer. It depends on the build, the boot
 * configuration and whether the workspace is trusted (`workspaces[].trusted`, read live), so it is
 * rendered once per trust state and served as a constant body: by the front door before the app is
 * built (`route-tags.ts` gives the build's tags), then by the app (`routes/capabilities.ts`, whose
 * schema this shape follows).
 */
import type { Config } from "../config/config.ts";
import { workspaceId } from "../workspace/workspace-id.ts";

export interface CapabilitiesDoc {
  readonly v: 1;
  readonly protocolVersions: { readonly current: string; readonly supported: string[] };
  readonly version: string;
  readonly mode: "http-bridge";
  readonly features: string[];
  readonly modelServices: unknown[];
  readonly workspaceCwd: string;
  readonly transports: string[];
  readonly policy: { readonly permission: string };
  readonly limits: { readonly maxPendingPromptsPerSession: number; readonly maxSessionsPerWorkspace: number; readonly maxTotalSessions: number; readonly sessionRestoreTimeoutMs: number };
  readonly workspaces: { readonly id: string; readonly cwd: string; readonly primary: boolean; readonly trusted: boolean }[];
}

export function capabilitiesDocument(config: Config, features: readonly string[], trusted: boolean): CapabilitiesDoc {
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
