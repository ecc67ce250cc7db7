/**
 * One tool call of the model, end to end: the `tool_call` update, the approval decision (and the
 * permission ask when needed), the run, and the `tool_call_update` with its result. Returns what
 * the model is told; every failure becomes a failed call the model can read, never a thrown error.
 * On the ACP side the call carries the agent's own id (the model's may be anything, 17 MB
 * included) and every field is bounded (`acp-bounds.ts`); the model is answered under its own id
 * by the turn. Hooks (`hooks/tool-hooks.ts`) run before the call is prepared (they may block it,
 * change its arguments or its approval) and after it completed.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { FsError } from "../errors/daemon-error.ts";
import { boundContent, boundLocations, boundRawOutput, boundTitle, oversizedInput, rawInputPreview, toolCallIdFor } from "./acp-bounds.ts";
import { decide } from "./approval.ts";
import type { AgentSession } from "./agent-session.ts";
import type { ToolCallRequest } from "./model/model-round.ts";
import { askPermission } from "./permission.ts";
import { withHookPermission, type ToolHooks } from "./hooks/tool-hooks.ts";
import type { ToolSet } from "./mcp/mcp-tools.ts";
import type { ToolDecision } from "./session-stats.ts";
import { capForModel, textContent, ToolInputError, type ToolContext } from "./tools/tool.ts";

export interface ToolCallResult {
  readonly text: string;
  readonly isError: boolean;
  /** The turn was cancelled during this call. */
  readonly cancelled: boolean;
}

/** An error as the model reads it; the workspace layer's hint (what to do instead) goes along. */
const messageOf = (err: unknown) => (err instanceof FsError && err.hint ? `${err.message} (${err.hint})` : err instanceof Error ? err.message : String(err));

function parseArgs(input: string): Record<string, unknown> {
  let args: unknown;
  try {
    args = JSON.parse(input === "" ? "{}" : input);
  } catch {
    throw new ToolInputError("the arguments are not valid JSON");
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw new ToolInputError("the arguments must be a JSON object");
  return args as Record<string, unknown>;
}

/** What the permission ask for a call on a protected path shows: "Protected path" first in the title, and the path first in the content. */
function protectedAsk(shown: { title: string; content?: acp.ToolCallContent[] }, path: string) {
  const notice = textContent(`Protected path: ${path}. This call asks every time; an "always" answer does not cover it.`);
  return { ...shown, title: boundTitle(`Protected path: ${shown.title}`), content: boundContent([notice, ...(shown.content ?? [])]) };
}

export async function runToolCall(client: acp.AgentContext, session: AgentSession, call: ToolCallRequest, context: ToolContext, toolbox: ToolSet, hooks: ToolHooks | null = null): Promise<ToolCallResult> {
  const toolCallId = toolCallIdFor();
  const update = (fields: Omit<acp.ToolCallUpdate, "toolCallId">) =>
    client.notify("session/update", { sessionId: session.id, update: { sessionUpdate: "tool_call_update", toolCallId, ...fields } });
  const fail = async (text: string, cancelled = false): Promise<ToolCallResult> => {
    await update({ status: "failed", content: boundContent([{ type: "content", content: { type: "text", text } }]) });
    return { text, isError: true, cancelled };
  };

  const tool = toolbox.enabled.get(call.name);
  const name = boundTitle(call.name);
  const oversized = oversizedInput(call.input);
  let rawInput: Record<string, unknown> = {};
  try {
    if (!oversized) rawInput = rawInputPreview(call.input, parseArgs(call.input));
  } catch {
    // reported once the call is announced
  }
  if (oversized) rawInput = rawInputPreview(call.input, {});
  await client.notify("session/update", {
    sessionId: session.id,
    update: { sessionUpdate: "tool_call", toolCallId, title: name, kind: tool?.kind ?? "other", status: "pending", rawInput, _meta: { toolName: name } },
  });
  if (toolbox.disabled.has(call.name)) return await fail(`${name} is disabled in this workspace; use another tool`);
  if (!tool) return await fail(`unknown tool ${name}; the tools are ${[...toolbox.enabled.keys()].join(", ")}`);
  const started = performance.now();
  let decided: ToolDecision = "auto_accept";
  const counted = (result: ToolCallResult) => {
    session.stats.toolCall(call.name, decided, !result.isError, performance.now() - started);
    return result;
  };

  let prepared;
  let args: Record<string, unknown>;
  let hookPermission;
  try {
    if (oversized) throw new ToolInputError(oversized);
    args = parseArgs(call.input);
    if (hooks) {
      const pre = await hooks.pre(session, call.name, args, context.signal);
      if (context.signal.aborted) return counted(await fail("cancelled", true));
      if (pre.blocked !== undefined) {
        decided = "reject";
        return counted(await fail(pre.blocked));
      }
      args = pre.args;
      hookPermission = pre.permission;
    }
    prepared = await tool.prepare(args, context);
  } catch (err) {
    return counted(await fail(`${name}: ${messageOf(err)}`));
  }
  const shown = { title: boundTitle(prepared.title), ...(prepared.locations ? { locations: boundLocations(prepared.locations) } : {}), ...(prepared.preview ? { content: boundContent(prepared.preview) } : {}) };
  await update(shown);

  // `proceed_always` only spares a question: it never overrides a mode that refuses (plan), and a
  // protected path has no "always" (each such call asks).
  const protectedPath = prepared.protectedPath;
  const asked = decide(session.mode, tool.toolClass, prepared.readOnlyCommand === true, protectedPath !== undefined);
  const always = protectedPath === undefined ? (prepared.alwaysScope ?? { key: tool.name, label: `Always allow ${tool.name}` }) : null;
  const decision = withHookPermission(asked === "ask" && always !== null && session.alwaysAllowed.has(always.key) ? "run" : asked, hookPermission, protectedPath !== undefined);
  if (decision === "refuse") {
    decided = "reject";
    return counted(await fail(`${call.name} is not available in ${session.mode} mode (read-only); describe the change instead`));
  }
  if (decision === "ask") {
    const asking = protectedPath === undefined ? shown : protectedAsk(shown, protectedPath);
    const verdict = await askPermission(client, session, always, { toolCallId, status: "pending", kind: tool.kind, rawInput, ...asking, _meta: { toolName: name, ...(protectedPath === undefined ? {} : { protectedPath }) } }, context.signal);
    decided = verdict === "approved" ? "accept" : "reject";
    if (verdict === "cancelled") return counted(await fail("cancelled", true));
    if (verdict === "declined") return counted(await fail(`the user declined this ${call.name} call`));
  }

  await update({ status: "in_progress" });
  try {
    const outcome = await prepared.run({ ...context, toolCallId });
    if (context.signal.aborted) return counted(await fail(`cancelled: ${outcome.text}`, true));
    const notes = hooks ? await hooks.post(session, call.name, args, outcome.text, context.signal) : "";
    await update({ status: "completed", ...(outcome.content ? { content: boundContent(outcome.content) } : {}), ...(outcome.rawOutput ? { rawOutput: boundRawOutput(outcome.rawOutput) } : {}) });
    // The hooks' notes go first, so a cut of a long result never drops them.
    return counted({ text: capForModel(notes === "" ? outcome.text : `${notes}\n${outcome.text}`), isError: false, cancelled: false });
  } catch (err) {
    return counted(await fail(`${name} failed: ${messageOf(err)}`, context.signal.aborted));
  }
}
