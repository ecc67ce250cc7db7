/**
 * Conversation rewind: `svc/control/session/rewind {sessionId, promptId}` cuts the session's
 * conversation back to before the user message of prompt `promptId` (the daemon's id for the
 * prompt, sent in `_meta["svc/invocation"]` and kept on that message, see `tagged`), in memory and
 * on disk. A running turn refuses it (`errorKind: "session_busy"`); a prompt whose message is not in
 * the kept conversation (never sent, or dropped by the history's bounds) is `-32602` with
 * `errorKind: "invalid_rewind_target"`. Answer: `{rewound: true, removedMessages}`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import type { AgentSession } from "./agent-session.ts";
import { fields } from "./status-methods.ts";

/** Where the prompt id is kept on a user message: provider options under a key no model provider reads, so no model is sent it. */
const TAG = "svc:rewind";

/** `message` marked as the user message of prompt `promptId` (unchanged without one). */
export function tagged(message: LanguageModelV4Message, promptId: string | undefined): LanguageModelV4Message {
  return promptId === undefined ? message : { ...message, providerOptions: { ...message.providerOptions, [TAG]: { promptId } } };
}

const promptIdOf = (message: LanguageModelV4Message): unknown => (message.role === "user" ? message.providerOptions?.[TAG]?.promptId : undefined);

/** The index of the user message of prompt `promptId` in `history`, or -1. */
export const promptIndex = (history: readonly LanguageModelV4Message[], promptId: string): number => history.findIndex((m) => promptIdOf(m) === promptId);

/** The prompt id `_meta["svc/invocation"].promptId` of a `session/prompt`, when it is a string. */
export function invocationPromptId(meta: unknown): string | undefined {
  const invocation = (meta as Record<string, unknown> | null | undefined)?.["svc/invocation"] as Record<string, unknown> | undefined;
  const id = invocation?.promptId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

export function registerRewindMethod(app: acp.AgentApp, session: (sessionId: string) => AgentSession): void {
  app.onRequest("svc/control/session/rewind", fields("sessionId", "promptId"), ({ params }) => {
    const target = session(params.sessionId);
    if (target.turn !== null) throw new acp.RequestError(-32602, "Cannot rewind while a prompt is running", { errorKind: "session_busy" });
    const at = promptIndex(target.history, params.promptId);
    if (at < 0) throw new acp.RequestError(-32602, "The prompt is not in the session's kept conversation", { errorKind: "invalid_rewind_target" });
    return { rewound: true, removedMessages: target.truncate(at) };
  });
}
