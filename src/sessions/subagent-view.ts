/**
 * `GET /session/:id/subagents/:ref`: a subagent run read back from the session's journal. `ref` is
 * the id of the tool call that started it (the built-in agent's `task`, Qwen Code's `agent`); its
 * updates are the session updates whose `_meta.parentToolCallId` is `ref` (the nesting Qwen Code
 * and the built-in agent use). The answer is the reference's (`sessionId` the virtual
 * `subagent.<base64url parent>.<base64url ref>` id, `taskId`, `title`, `status`, `durationMs`,
 * token counts when the call reported them) plus `events`: the nested envelopes in journal order.
 *
 * Bounds: the journal is read a page at a time; at most MAX_SUBAGENT_EVENT_BYTES of envelopes are
 * returned (then `truncated: true`). A ref no tool call of the session has is 404
 * `session_not_found` (the reference's).
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { SessionHistory } from "./session-history.ts";

export const MAX_SUBAGENT_REF_LENGTH = 500;
export const MAX_SUBAGENT_EVENT_BYTES = 2 * 1024 * 1024;

interface Envelope {
  type?: string;
  promptId?: string;
  data?: { update?: { sessionUpdate?: string; toolCallId?: string; title?: string; status?: string; rawOutput?: Record<string, unknown>; _meta?: { parentToolCallId?: unknown } | null } };
}

const encodePart = (value: string) => Buffer.from(value, "utf8").toString("base64url");

export type SubagentStatus = "running" | "completed" | "failed" | "cancelled";

export interface SubagentView {
  sessionId: string;
  taskId: string;
  title?: string;
  status: SubagentStatus;
  durationMs?: number;
  totalTokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  events: unknown[];
  truncated: boolean;
}

const count = (value: unknown) => (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

export function subagentView(history: SessionHistory, sessionId: string, ref: string): SubagentView {
  if (ref === "" || ref.length > MAX_SUBAGENT_REF_LENGTH) throw new DaemonError(400, "invalid_subagent_ref", "`subagentRef` must be a non-empty subagent reference");
  const { pages } = history.exportData(sessionId);
  let found = false;
  let title: string | undefined;
  let status: SubagentStatus = "running";
  let rawOutput: Record<string, unknown> = {};
  let taskPrompt: string | undefined;
  /** How each turn ended: a task whose turn was cancelled ends `failed` on the wire, but was cancelled. */
  const endings = new Map<string, string>();
  const events: unknown[] = [];
  let bytes = 0;
  let truncated = false;
  const needle = JSON.stringify(ref).slice(1, -1);
  for (const page of pages)
    for (const record of page) {
      if (record.envelope.includes('"turn_complete"')) {
        const end = JSON.parse(record.envelope) as Envelope & { data?: { stopReason?: unknown } };
        if (end.type === "turn_complete" && typeof end.promptId === "string" && typeof end.data?.stopReason === "string") endings.set(end.promptId, end.data.stopReason);
        if (end.type === "turn_complete") continue;
      }
      // Cheap test first: most envelopes mention neither the ref nor a parent.
      if (!record.envelope.includes(needle)) continue;
      const envelope = JSON.parse(record.envelope) as Envelope;
      const update = envelope.type === "session_update" ? envelope.data?.update : undefined;
      if (!update) continue;
      if (update.toolCallId === ref && update._meta?.parentToolCallId === undefined) {
        found = true;
        if (typeof envelope.promptId === "string") taskPrompt = envelope.promptId;
        if (typeof update.title === "string") title = update.title;
        if (update.status === "completed" || update.status === "failed") status = update.status;
        if (update.rawOutput && typeof update.rawOutput === "object") rawOutput = update.rawOutput;
        continue;
      }
      if (update._meta?.parentToolCallId !== ref) continue;
      if (bytes + record.envelope.length > MAX_SUBAGENT_EVENT_BYTES) {
        truncated = true;
        continue;
      }
      bytes += record.envelope.length;
      events.push(envelope);
    }
  if (!found) throw new DaemonError(404, "session_not_found", "Subagent session not found", { sessionId, subagentRef: ref });
  if (rawOutput.status === "cancelled" || (status === "failed" && taskPrompt !== undefined && endings.get(taskPrompt) === "cancelled")) status = "cancelled";
  const durationMs = count(rawOutput.durationMs);
  const totalTokens = count(rawOutput.totalTokens);
  const inputTokens = count(rawOutput.inputTokens);
  const outputTokens = count(rawOutput.outputTokens);
  return {
    sessionId: `subagent.${encodePart(sessionId)}.${encodePart(ref)}`,
    taskId: ref,
    ...(title !== undefined ? { title } : {}),
    status,
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(totalTokens !== undefined ? { totalTokens } : {}),
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    events,
    truncated,
  };
}
