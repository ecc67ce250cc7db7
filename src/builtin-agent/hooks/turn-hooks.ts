/**
 * The hooks' part in a prompt turn (`turn.ts`): `SessionStart` once per session, when its first
 * prompt begins (source `startup`, or `resume` for a session taken back from its saved
 * conversation: the agent opens sessions without running anything, so an unprompted session costs
 * nothing), then `UserPromptSubmit`. A block of either ends the turn before the model is asked and
 * the prompt is not kept; the user reads the reason. Their context (JSON `additionalContext`, or
 * plain stdout) goes with the prompt to the model. `SessionEnd` runs when the session is closed;
 * the close is answered when it ends, within SESSION_END_WAIT_MS. Both tool events: `tool-hooks.ts`.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentSession } from "../agent-session.ts";
import type { Hooks } from "./hooks.ts";
import { boundNote, ToolHooks } from "./tool-hooks.ts";

/** How long `session/close` waits for the session's SessionEnd hooks (below the daemon's 10 s control timeout). */
export const SESSION_END_WAIT_MS = 5000;

export interface TurnOpening {
  /** Set when the prompt must not go to the model: what the user is told. */
  readonly blocked?: string;
  /** Text to send along with the prompt. */
  readonly context?: string;
}

/** The prompt's text as hooks read it (embedded resources as their URI). */
function promptText(prompt: readonly acp.ContentBlock[]): string {
  return prompt.map((b) => (b.type === "text" ? b.text : b.type === "resource_link" ? `[file: ${b.uri}]` : b.type === "resource" ? `[file: ${b.resource.uri}]` : "")).join("\n");
}

export class TurnHooks {
  readonly tool: ToolHooks;
  /** Sessions whose SessionStart hooks have run. */
  private readonly started = new Set<string>();

  constructor(private readonly hooks: Hooks) {
    this.tool = new ToolHooks(hooks);
  }

  async opening(session: AgentSession, prompt: readonly acp.ContentBlock[], signal: AbortSignal): Promise<TurnOpening> {
    const contexts: string[] = [];
    if (!this.started.has(session.id)) {
      this.started.add(session.id);
      const start = await this.hooks.run("SessionStart", session.id, { source: session.history.length === 0 ? "startup" : "resume" }, signal);
      if (start?.block) return { blocked: boundNote(`The session was stopped by a SessionStart hook${start.reason ? `: ${start.reason}` : ""}`) };
      if (start?.additionalContext) contexts.push(start.additionalContext);
    }
    const submit = await this.hooks.run("UserPromptSubmit", session.id, { prompt: promptText(prompt) }, signal);
    if (submit?.block || submit?.stop) return { blocked: boundNote(`The prompt was blocked by a UserPromptSubmit hook${submit.reason ? `: ${submit.reason}` : ""}`) };
    if (submit?.additionalContext) contexts.push(submit.additionalContext);
    return contexts.length === 0 ? {} : { context: boundNote(contexts.join("\n")) };
  }

  /**
   * Runs the SessionEnd hooks of a closed session, then forgets its hooks. Settles when they end, or
   * after SESSION_END_WAIT_MS, when they are stopped: `session/close` is answered then, and a daemon
   * that stops the agent once its last session closes would otherwise kill them mid-run.
   */
  async closed(sessionId: string): Promise<void> {
    this.started.delete(sessionId);
    const signal = AbortSignal.timeout(SESSION_END_WAIT_MS);
    try {
      await this.hooks.run("SessionEnd", sessionId, { reason: "close" }, signal);
    } catch {
      // A SessionEnd hook decides nothing: its failure only ends the wait.
    } finally {
      this.hooks.forget(sessionId);
    }
  }
}
