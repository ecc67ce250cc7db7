/**
 * A session update a subagent sent on its parent's session: it carries `_meta.parentToolCallId`
 * (the `task` call it runs under; the nesting Qwen Code's ACP uses too). Its messages are the
 * subagent's, never the agent's own reply: readers that fold a session's messages into text (the
 * transcript, the export, the turn index, the seed of a restored or branched conversation, the
 * recap's digest) leave them out; `GET /session/:id/subagents/:ref` reads them back.
 */
export function isNestedUpdate(update: Record<string, unknown>): boolean {
  const meta = update._meta;
  return typeof meta === "object" && meta !== null && typeof (meta as Record<string, unknown>).parentToolCallId === "string";
}
