/**
 * Runtime MCP servers (`mcp_server_runtime_mutation`): `<prefix>/control/workspace/mcp/runtime-add
 * {cwd, name, config, originatorClientId}` and `.../runtime-remove {cwd, name, originatorClientId}`,
 * the reference agent's methods (the built-in agent answers them too). Each answer is rebuilt from
 * its known fields (strings bounded), and the agent's typed failures become the reference daemon's
 * codes: 409 `mcp_budget_would_exceed`, 502 `mcp_server_spawn_failed`, 400 `invalid_config`.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { boundedText, control, protocolError } from "./profile-controls.ts";
import type { Live } from "./workspace-runtime.ts";

/** Connecting a server may wait for its discovery (the reference allows as long as for a restart). */
const RUNTIME_MCP_TIMEOUT_MS = 300_000;

export type RuntimeAddResult =
  | { name: string; transport: string; replaced: boolean; shadowedSettings: boolean; toolCount: number; originatorClientId?: string }
  | { name: string; skipped: true; reason: string };

export type RuntimeRemoveResult = { name: string; removed: true; wasShadowingSettings: boolean; originatorClientId?: string } | { name: string; skipped: true; reason: string };

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The agent's failure as the reference's code, or the error as it was. */
function typedFailure(err: unknown, name: string): unknown {
  if (!(err instanceof DaemonError) || err.code !== "agent_control_failed") return err;
  const message = boundedText(err.message) ?? "";
  switch (err.fields.agentErrorKind) {
    case "mcp_budget_would_exceed":
      return new DaemonError(409, "mcp_budget_would_exceed", `Adding '${name}' would exceed workspace MCP budget`, { serverName: name });
    case "mcp_server_spawn_failed":
      return new DaemonError(502, "mcp_server_spawn_failed", `Failed to spawn MCP server '${name}'`, { serverName: name, stderr: message, timeout: /timed? ?out/i.test(message) });
    case "invalid_config":
      return new DaemonError(400, "invalid_config", `Invalid MCP server config for '${name}'`, { serverName: name, reason: message });
    default:
      return err;
  }
}

/** A skip answer (`{name, skipped: true, reason}`), or null. */
function skipped(answer: Record<string, unknown>, name: string): { name: string; skipped: true; reason: string } | null {
  if (answer.skipped !== true) return null;
  return { name, skipped: true, reason: boundedText(answer.reason) ?? "skipped" };
}

const originator = (answer: Record<string, unknown>) => {
  const id = boundedText(answer.originatorClientId);
  return id === null ? {} : { originatorClientId: id };
};

export async function addRuntimeMcp(live: Live, cwd: string, name: string, config: Record<string, unknown>, originatorClientId: string): Promise<RuntimeAddResult> {
  let answer: unknown;
  try {
    answer = await control<unknown>(live, "workspace/mcp/runtime-add", { cwd, name, config, originatorClientId }, "add a runtime MCP server", RUNTIME_MCP_TIMEOUT_MS);
  } catch (err) {
    throw typedFailure(err, name);
  }
  if (answer === null || typeof answer !== "object") throw protocolError("the runtime MCP add");
  const a = answer as Record<string, unknown>;
  const skip = skipped(a, name);
  if (skip) return skip;
  const transport = boundedText(a.transport);
  if (transport === null || typeof a.replaced !== "boolean" || typeof a.shadowedSettings !== "boolean" || !isCount(a.toolCount)) throw protocolError("the runtime MCP add");
  return { name, transport, replaced: a.replaced, shadowedSettings: a.shadowedSettings, toolCount: a.toolCount, ...originator(a) };
}

export async function removeRuntimeMcp(live: Live, cwd: string, name: string, originatorClientId: string): Promise<RuntimeRemoveResult> {
  const answer = await control<unknown>(live, "workspace/mcp/runtime-remove", { cwd, name, originatorClientId }, "remove a runtime MCP server", RUNTIME_MCP_TIMEOUT_MS);
  if (answer === null || typeof answer !== "object") throw protocolError("the runtime MCP remove");
  const a = answer as Record<string, unknown>;
  const skip = skipped(a, name);
  if (skip) return skip;
  if (a.removed !== true || typeof a.wasShadowingSettings !== "boolean") throw protocolError("the runtime MCP remove");
  return { name, removed: true, wasShadowingSettings: a.wasShadowingSettings, ...originator(a) };
}
