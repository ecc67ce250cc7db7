/**
 * What an agent does on the wire and needs around it, beyond the ACP methods a profile maps
 * (`../agent-profile.ts`): one record per agent, from its installed sources (each file cites where)
 * and from experiment (spec/acp-agents.md §A, /work/briefs/interop-facts.md). The daemon acts on
 * `authenticate` (after initialize) and `modelEndpointEnv` (the child's environment); the rest
 * documents what clients see through svc and is checked by test/unit/agents/agent-facts.test.ts.
 */

import type { ModelEndpoint } from "../../config/agent-settings.ts";

export interface PermissionOptionIds {
  readonly allowOnce: string;
  readonly allowAlways: string | null;
  readonly rejectOnce: string;
}

export interface AgentFacts {
  /** `agentInfo.name` values this agent answers initialize with (how a `generic` launch is recognised). */
  readonly agentInfoNames: readonly string[];
  /** Variables that carry its credentials, the usual one first. */
  readonly authEnv: readonly string[];
  /**
   * The ACP `authenticate` call it needs after initialize before `session/new` works, made when
   * `whenEnv` is set in the child's environment and initialize offers the method; null: none.
   */
  readonly authenticate: { readonly methodId: string; readonly whenEnv: string } | null;
  /**
   * Variables its child always gets when `--agent` launched it, given the daemon's environment:
   * what keeps the pinned install as installed (no self-update) and works around its quirks.
   */
  spawnEnv(env: Readonly<Record<string, string>>): Record<string, string>;
  /** The variables that point it at a custom model endpoint (merged over the child's environment). */
  modelEndpointEnv(endpoint: ModelEndpoint): Record<string, string>;
  /** The optionIds of its `session/request_permission` options (null: it has no such option). */
  readonly permissionOptionIds: PermissionOptionIds | null;
  /** Whether initialize advertises `loadSession` / `sessionCapabilities.resume`. */
  readonly sessionLoad: boolean;
  readonly sessionResume: boolean;
  /** Extension notifications it sends besides `session/update` (logged by the daemon, not relayed). */
  readonly extensionNotifications: readonly string[];
  /** It ignores SIGTERM for a long time but exits on stdin EOF: the stop must close stdin first (AgentProcess.stop does). */
  readonly ignoresSigterm: boolean;
}

/** A keyless endpoint still needs some key for agents that refuse to start without one. */
export const PLACEHOLDER_KEY = "svc-no-key";

/**
 * The credential variables of a child pointed at a custom endpoint: `keyVar` carries the key the
 * user named for it (`apiKeyEnv`), or PLACEHOLDER_KEY for a keyless one, and never the key the
 * child would otherwise inherit from the daemon's environment (the user's key for the provider's
 * own service, which would go to the endpoint's host). `alsoEmpty` lists the provider's other
 * credential variables the agent would send to the same host; they are emptied.
 */
export function endpointCredentials(keyVar: string, apiKey: string | null, alsoEmpty: readonly string[] = []): Record<string, string> {
  return { ...Object.fromEntries(alsoEmpty.map((name) => [name, ""])), [keyVar]: apiKey ?? PLACEHOLDER_KEY };
}
