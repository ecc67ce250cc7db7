/**
 * Model choices on create (`modelServiceId`, `startupConfig`) and `POST /session/:id/model`.
 * A model id is accepted when the agent offered it (its `models.availableModels` or the options of
 * its `model` config option); when the agent reported no list, the agent decides.
 * Success publishes `model_switched`; failure publishes `model_switch_failed` (the only signal on an
 * attach, where a rejected switch is not an HTTP error).
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { LiveSession } from "./live-session.ts";

export const REASONING_EFFORTS = ["none", "default", "low", "medium", "high", "xhigh", "max"] as const;

export interface StartupConfig {
  readonly modelServiceId: string;
  /**
   * `startupConfigApplied` once the model switch succeeded: only what the agent accepted. The model
   * is the one selection sent to it; a requested `reasoningEffort` is validated but not sent, so it
   * is not reported as applied (nor is any `effectiveReasoning`).
   */
  readonly applied: Record<string, unknown>;
}

const invalid = (message: string) => new DaemonError(400, "invalid_startup_config", message);

/** The `startupConfig` of a create request; its shape is checked by the route's schema, its members passed through whole. */
export interface StartupConfigRequest {
  readonly modelServiceId: string;
  readonly reasoningEffort?: (typeof REASONING_EFFORTS)[number];
  readonly [member: string]: unknown;
}

/** Refuses members `startupConfig` does not define and its combination with top-level `modelServiceId` or `single`. */
export function checkStartupConfig(config: StartupConfigRequest, request: { modelServiceId?: string; sessionScope?: string }): StartupConfig {
  const { modelServiceId, reasoningEffort: _checked, ...rest } = config;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalid(`unknown \`startupConfig\` field ${JSON.stringify(unknown[0])}`);
  if (request.modelServiceId !== undefined) throw invalid("`startupConfig` cannot be combined with top-level `modelServiceId`");
  if (request.sessionScope === "single") throw invalid("`startupConfig` starts a new thread and cannot be combined with `sessionScope: single`");
  return { modelServiceId, applied: { modelServiceId } };
}

/** Model ids the agent offered for this session, or null when it reported none. */
export function offeredModels(session: LiveSession): Set<string> | null {
  const ids = new Set<string>();
  const models = session.state.models as { availableModels?: { modelId?: unknown }[] } | undefined;
  for (const m of models?.availableModels ?? []) if (typeof m?.modelId === "string") ids.add(m.modelId);
  const options = Array.isArray(session.state.configOptions) ? (session.state.configOptions as Record<string, unknown>[]) : [];
  for (const option of options) {
    if (option.id !== "model" && option.category !== "model") continue;
    for (const o of (option.options as { value?: unknown }[] | undefined) ?? []) if (typeof o?.value === "string") ids.add(o.value);
  }
  return ids.size === 0 ? null : ids;
}

/** Switches the session's model; resolves with the agent's result, or throws after publishing the failure. */
export async function switchModel(session: LiveSession, modelId: string, clientId: string | null): Promise<Record<string, unknown>> {
  const fields = clientId === null ? {} : { originatorClientId: clientId };
  const fail = (error: string) => session.publish("model_switch_failed", { sessionId: session.id, requestedModelId: modelId, error }, fields);
  const offered = offeredModels(session);
  if (offered !== null && !offered.has(modelId)) {
    fail(`Model "${modelId}" is not offered by the agent`);
    throw new DaemonError(400, "unknown_model", `Model "${modelId}" is not offered by the agent`, { sessionId: session.id, modelId, availableModelIds: [...offered] });
  }
  const live = session.runtime.current();
  if (!live) {
    fail("the agent is not running");
    throw new DaemonError(503, "workspace_runtime_unavailable", "Workspace runtime is not active.", {}, 1);
  }
  let result: Record<string, unknown>;
  try {
    result = (await live.profile.setModel(live.channel, session.agentSessionId, modelId, session.state)) ?? {};
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
    throw err;
  }
  const models = session.state.models;
  if (models && typeof models === "object") session.state.models = { ...(models as object), currentModelId: modelId };
  if (Array.isArray(result.configOptions)) session.state.configOptions = result.configOptions;
  session.publish("model_switched", { sessionId: session.id, modelId }, fields);
  return result;
}

/** `switchModel` for create/attach, where a rejection is reported but not thrown. */
export async function applyModel(session: LiveSession, modelId: string, clientId: string | null): Promise<boolean> {
  try {
    await switchModel(session, modelId, clientId);
    return true;
  } catch {
    return false;
  }
}
