/**
 * Branching a session: `session/fork {sessionId, cwd, mcpServers}` opens a new session whose
 * conversation is a copy of the source's, saved as its own (`conversation-store.ts`), with the
 * source's mode, model and reply language. With `_meta["svc/fork"].beforePromptId` the copy stops
 * before the user message of that prompt (the daemon's prompt id, kept on the message, see
 * `rewind.ts`): the branch holds the turns before it. The source is left as it was.
 *
 * A running turn refuses it (`errorKind: "session_busy"`: its conversation is not whole yet); a
 * prompt id not in the source's kept conversation is `-32602` with `errorKind:
 * "branch_point_invalid"`. Answer: the new session's id, modes and models, as `session/new`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentSession } from "./agent-session.ts";
import { promptIndex } from "./rewind.ts";

/** The prompt id the copy stops before, when `_meta["svc/fork"].beforePromptId` is a non-empty string. */
export function forkCut(meta: unknown): string | undefined {
  const fork = (meta as Record<string, unknown> | null | undefined)?.["svc/fork"] as Record<string, unknown> | undefined;
  const id = fork?.beforePromptId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** Fills `branch` (a session just opened) from `source`, cut before prompt `beforePromptId` when given, and saves it. */
export function forkInto(source: AgentSession, branch: AgentSession, beforePromptId: string | undefined): void {
  if (source.turn !== null) throw new acp.RequestError(-32602, "Cannot branch while a prompt is running", { errorKind: "session_busy" });
  const end = beforePromptId === undefined ? source.history.length : promptIndex(source.history, beforePromptId);
  if (end < 0) throw new acp.RequestError(-32602, "The prompt is not in the session's kept conversation", { errorKind: "branch_point_invalid" });
  branch.mode = source.mode;
  branch.modelId = source.modelId;
  branch.outputLanguage = source.outputLanguage;
  branch.restore(source.history.slice(0, end));
  branch.save();
}
