/** Prompts: admission (202), cancel of the running prompt (204), and the pending list. */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { Elysia, t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { SessionIdParams, registeredClient } from "./session-params.ts";

/** Content blocks per prompt. */
const MAX_BLOCKS = 1000;
const BAD_PROMPT = "`prompt` is required and must be a non-empty array of content blocks";

function checkPrompt(body: unknown): { prompt: acp.ContentBlock[]; deadlineMs: number | null } {
  const b = body as { prompt?: unknown; deadlineMs?: unknown } | undefined;
  const prompt = b?.prompt;
  if (!Array.isArray(prompt) || prompt.length === 0 || prompt.length > MAX_BLOCKS) throw new DaemonError(400, null, BAD_PROMPT);
  for (const block of prompt) {
    if (!block || typeof block !== "object" || Array.isArray(block) || typeof (block as { type?: unknown }).type !== "string") throw new DaemonError(400, null, BAD_PROMPT);
    if ((block as { type: string }).type === "text" && typeof (block as { text?: unknown }).text !== "string") throw new DaemonError(400, null, BAD_PROMPT);
  }
  let deadlineMs: number | null = null;
  if (b?.deadlineMs !== undefined) {
    if (!Number.isSafeInteger(b.deadlineMs) || (b.deadlineMs as number) < 1) throw new DaemonError(400, "invalid_deadline", "`deadlineMs` must be a positive whole number");
    deadlineMs = b.deadlineMs as number;
  }
  return { prompt: prompt as acp.ContentBlock[], deadlineMs };
}

export const promptRoutes = (deps: AppDeps) =>
  new Elysia({ name: "routes/prompts" })
    .post(
      "/session/:id/prompt",
      ({ params, body, request, set }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const { prompt, deadlineMs } = checkPrompt(body);
        session.lastSeenAt = Date.now();
        const admission = session.prompts.submit(prompt, clientId, deadlineMs);
        set.status = 202;
        return admission;
      },
      {
        params: SessionIdParams,
        body: t.Optional(t.Unknown()),
        detail: capability(["session_prompt", "non_blocking_prompt"], { summary: "Queue a prompt (202 on admission)" }),
      },
    )
    .post(
      "/session/:id/cancel",
      async ({ params, request, set }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        await session.prompts.cancelRunning(clientId);
        set.status = 204;
        return null;
      },
      { params: SessionIdParams, body: t.Optional(t.Unknown()), detail: capability("session_cancel", { summary: "Cancel the running prompt (204)" }) },
    )
    .get(
      "/session/:id/pending-prompts",
      ({ params, request }) => {
        const session = deps.sessions.get(params.id);
        registeredClient(session, request);
        return {
          pendingPrompts: session.prompts.list().map((p) => ({
            promptId: p.promptId,
            text: p.text,
            content: p.content,
            queuedAt: p.queuedAt,
            state: p.state,
            ...(p.originatorClientId ? { originatorClientId: p.originatorClientId } : {}),
          })),
        };
      },
      { params: SessionIdParams, detail: { summary: "Running and queued prompts" } },
    );
