/**
 * The built-in agent acts only on a permission answer it offered: an option id it never offered
 * (whatever it looks like) is a refusal, so the tool does not run (issue 22, deliverable 10). The
 * daemon refuses such a vote before the agent sees it (permissions-unknown-option.test.ts); this
 * is the agent's own guard, for a client that talks ACP to it directly.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { startAgent } from "./agent-client.ts";

const finalStatus = (updates: acp.SessionUpdate[], id: string) =>
  updates.filter((u): u is acp.SessionUpdate & { sessionUpdate: "tool_call_update" } => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status !== undefined).at(-1)?.status;
/** What the model was told for its tool calls, from the last request it got. */
const toolResults = (requests: unknown[]) =>
  ((requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("a permission answer with an option id the agent never offered", () => {
  test("runs nothing, whatever the id looks like: the write is declined and the model told", async () => {
    await using a = await startAgent({ workspaceSettings: { tools: { approvalMode: "default" } } });
    const { sessionId } = await a.newSession();
    const unoffered = ["allow_everything", "allow_once", "PROCEED_ONCE", "proceed_once ", ""];
    for (const [i, optionId] of unoffered.entries()) {
      a.onPermission = () => ({ outcome: "selected", optionId });
      const file = `w${i}.txt`;
      a.model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: file, content: "written" } }] }, { kind: "text", text: "ok" });
      const { response, updates } = await a.turn(sessionId, `write ${file}`);
      const asked = a.permissionRequests.at(-1)!;
      const callId = asked.toolCall.toolCallId;
      expect({ optionId, offered: asked.options.map((o) => o.optionId).includes(optionId) }).toEqual({ optionId, offered: false });
      expect({ optionId, stopReason: response.stopReason, written: existsSync(join(a.workspace, file)), status: finalStatus(updates, callId), told: toolResults(a.model.requests).at(-1) }).toEqual({
        optionId,
        stopReason: "end_turn",
        written: false,
        status: "failed",
        told: expect.stringContaining("declined"),
      });
    }
    expect(a.permissionRequests).toHaveLength(unoffered.length);
  });
});
