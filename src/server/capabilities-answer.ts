/**
 * The capabilities document and its constant answer. It depends on the build, the boot
 * configuration and the workspaces served (`workspaces[]`, with their trust read live), so it is
 * rendered once per state of those and served as a constant body: by the front door before the app
 * is built (`route-tags.ts` gives the build's tags, `boot-workspaces.ts` the workspaces the core
 * will serve), then by the app (`routes/capabilities.ts`, whose schema this shape follows).
 */
import { MAX_GROUP_NAME_CHARS, MAX_GROUPS } from "../sessions/organization-limits.ts";
import type { Config } from "../config/config.ts";

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
  readonly limits: {
    readonly maxRegisteredWorkspaces: number;
    readonly maxPendingPromptsPerSession: number;
    readonly maxSessionsPerWorkspace: number;
    readonly maxTotalSessions: number;
    readonly sessionRestoreTimeoutMs: number;
    readonly maxSessionGroups: number;
    readonly maxSessionGroupNameChars: number;
  };
  readonly workspaces: readonly CapabilitiesWorkspace[];
}

/** A workspace served, as `/capabilities` lists it (the primary first). */
export interface CapabilitiesWorkspace {
  readonly id: string;
  readonly cwd: string;
  readonly displayName?: string;
  readonly primary: boolean;
  readonly trusted: boolean;
  /** `DELETE /workspaces/:workspace` can remove it (every registered workspace; never the primary). */
  readonly removable: boolean;
}

export function capabilitiesDocument(config: Config, features: readonly string[], workspaces: readonly CapabilitiesWorkspace[]): CapabilitiesDoc {
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
      maxRegisteredWorkspaces: config.limits.maxWorkspaces,
      maxPendingPromptsPerSession: config.limits.maxPendingPromptsPerSession,
      maxSessionsPerWorkspace: config.limits.maxSessions,
      maxTotalSessions: config.limits.maxTotalSessions,
      sessionRestoreTimeoutMs: config.limits.sessionRestoreTimeoutMs,
      maxSessionGroups: MAX_GROUPS,
      maxSessionGroupNameChars: MAX_GROUP_NAME_CHARS,
    },
    workspaces,
  };
}

const HEADERS = { "Content-Type": "application/json; charset=utf-8" };

/**
 * The constant response, rendered again only when the workspaces (or their trust) changed:
 * `features` is read lazily because the full route table is known only once the app is assembled.
 * Also served straight from the front door.
 */
export function capabilitiesResponder(config: Config, features: () => readonly string[], workspaces: () => readonly CapabilitiesWorkspace[]): () => Response {
  let rendered: { key: string; body: string } | null = null;
  return () => {
    const list = workspaces();
    const key = JSON.stringify(list);
    if (rendered?.key !== key) rendered = { key, body: JSON.stringify(capabilitiesDocument(config, features(), list)) };
    return new Response(rendered.body, { headers: HEADERS });
  };
}
