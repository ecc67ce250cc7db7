/**
 * The controls behind `POST /session/:id/hooks` and `DELETE /session/:id/hooks/:hookId`:
 * `<prefix>/control/session/hooks/add` and `.../remove` (the built-in agent's, `hook-methods.ts`);
 * an agent without them is 501 `agent_control_unsupported`. A definition the agent refuses (its
 * `errorKind: "invalid_hook"`: a bad field, or the session's bound reached) is 400 `invalid_hook`
 * with the agent's reason. The hook the agent answers is the caller's to sanitize.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { control, protocolError } from "./profile-controls.ts";
import type { Live } from "./workspace-runtime.ts";

export interface SessionHookRequest {
  readonly eventName: string;
  readonly matcher?: string;
  readonly command: string;
  readonly timeout?: number;
  readonly name?: string;
  readonly description?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The agent's refusal of a definition as 400; anything else as it came. */
function refusal(err: unknown): unknown {
  if (err instanceof DaemonError && err.fields.agentErrorKind === "invalid_hook") return new DaemonError(400, "invalid_hook", err.message.replace(/^The agent failed to add a session hook: /, ""), { errorKind: "invalid_hook" });
  return err;
}

/** Adds a hook to the agent's session; the agent's answer for it (unsanitized). */
export async function addSessionHook(live: Live, sessionId: string, request: SessionHookRequest): Promise<Record<string, unknown>> {
  const { eventName, matcher, command, timeout, name, description } = request;
  const hook = { type: "command", command, ...(timeout === undefined ? {} : { timeout }), ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }) };
  let result: { hook?: unknown } | null;
  try {
    result = await control<{ hook?: unknown } | null>(live, "session/hooks/add", { sessionId, eventName, ...(matcher === undefined ? {} : { matcher }), hook }, "add a session hook");
  } catch (err) {
    throw refusal(err);
  }
  if (!isObject(result?.hook)) throw protocolError("the session hook");
  return result.hook;
}

/** Removes a hook from the agent's session; whether it had one of that id. */
export async function removeSessionHook(live: Live, sessionId: string, hookId: string): Promise<boolean> {
  const result = await control<{ removed?: unknown } | null>(live, "session/hooks/remove", { sessionId, hookId }, "remove a session hook");
  if (typeof result?.removed !== "boolean") throw protocolError("the session hook removal");
  return result.removed;
}
