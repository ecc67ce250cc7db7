/**
 * Live sessions on a fake-agent daemon and the turns their prompts make, for the prompt, event and
 * permission tests: `await using d = await fakeAgentDaemon()`, then
 * `await using s = await openSession(d)`; disposing the session closes it (DELETE).
 */
import type { FakeAgentDaemon } from "./fake-agent-daemon.ts";
import { readJsonReply, type JsonReply } from "./json-request.ts";
import type { OpenOptions, SseClient, SseFrame } from "./sse-client.ts";
import { until } from "./until.ts";

export interface TestSession extends AsyncDisposable {
  readonly id: string;
  /** The client id minted for the creator. */
  readonly clientId: string;
  readonly daemon: FakeAgentDaemon;
  /** Registers one more client on a `single`-scope session (an attach) and returns its minted id. */
  addClient(): Promise<string>;
  /** Opens the session's event stream. */
  events(headers?: Record<string, string>, options?: Omit<OpenOptions, "headers"> & { query?: string }): Promise<SseClient>;
  /** POST /session/:id/prompt with one text block (or `body` as given). */
  prompt(text: string, options?: { clientId?: string | null; body?: unknown }): Promise<JsonReply>;
  /** POST /session/:id/permission/:requestId. */
  vote(requestId: string, outcome: unknown, options?: { clientId?: string | null }): Promise<JsonReply>;
  cancel(options?: { clientId?: string | null }): Promise<Response>;
  pending(): Promise<JsonReply>;
}

function clientHeader(clientId: string | null | undefined): Record<string, string> {
  return clientId ? { "X-Svc-Client-Id": clientId } : {};
}

/**
 * A live session of its own: `thread` scope (default) makes a new one every time; `single` is the
 * workspace's default session, to which `addClient` attaches further clients. It resolves once the
 * agent's opening `available_commands_update` has been published, so a test starts on a quiet bus.
 */
export async function openSession(d: FakeAgentDaemon, scope: "single" | "thread" = "thread"): Promise<TestSession> {
  const created = await d.createSession({ sessionScope: scope });
  const id = created.sessionId;
  const base = `/session/${encodeURIComponent(id)}`;
  if (!created.attached) {
    await using opening = await d.events(id, { "Last-Event-ID": "0" });
    await opening.waitFor("session_update", (f) => f.data.update?.sessionUpdate === "available_commands_update");
  }
  const post = (path: string, body: unknown, clientId: string | null | undefined) =>
    d.fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json", ...clientHeader(clientId) }, body: JSON.stringify(body) });
  return {
    id,
    clientId: created.clientId,
    daemon: d,
    async addClient() {
      const attached = await d.createSession({ sessionScope: "single" });
      if (attached.sessionId !== id || !attached.attached) throw new Error("addClient needs the workspace's default (single-scope) session");
      return attached.clientId;
    },
    events: (headers = {}, options = {}) => d.events(id, headers, options),
    prompt: async (text, options = {}) => readJsonReply(await post("/prompt", options.body ?? { prompt: [{ type: "text", text }] }, options.clientId)),
    vote: async (requestId, outcome, options = {}) => readJsonReply(await post(`/permission/${encodeURIComponent(requestId)}`, { outcome }, options.clientId)),
    cancel: (options = {}) => d.fetch(`${base}/cancel`, { method: "POST", headers: clientHeader(options.clientId) }),
    pending: async () => readJsonReply(await d.fetch(`${base}/pending-prompts`)),
    async [Symbol.asyncDispose]() {
      const closed = await d.fetch(base, { method: "DELETE" }).catch(() => null);
      await closed?.body?.cancel();
    },
  };
}

/** Whether `frame` ends a prompt: `turn_complete` or `turn_error`. */
export const isTerminal = (frame: SseFrame) => frame.event === "turn_complete" || frame.event === "turn_error";

/** The terminal frames of `promptId` among `frames` (every admitted prompt gets exactly one). */
export const terminalsOf = (frames: readonly SseFrame[], promptId: string) => frames.filter((f) => isTerminal(f) && f.data.promptId === promptId);

/** Whether `frame` is a chunk of the agent's message. */
export const isAgentChunk = (frame: SseFrame) => frame.event === "session_update" && frame.data.update.sessionUpdate === "agent_message_chunk";

/** The text of every agent message chunk among `frames`, in order. */
export const agentChunks = (frames: readonly SseFrame[]) => frames.filter(isAgentChunk).map((f) => f.data.update.content.text as string);

/** Waits until the agent has been sent a `session/prompt` for `s`. */
export const untilAgentHasPrompt = (s: TestSession) =>
  until(async () => (await s.daemon.sentToAgent("session/prompt", s.id)).length > 0, 5000, "the agent to get the prompt");

/** Consumes frames up to and including the terminal event (`turn_complete`/`turn_error`) of `promptId`. */
export async function untilTurnEnds(sse: SseClient, promptId: string, timeoutMs = 5000): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = await sse.next(Math.max(1, deadline - Date.now()));
    if (frame === null) throw new Error(`stream ended before prompt ${promptId} did (seen: ${out.map((f) => f.event).join(", ")})`);
    out.push(frame);
    if (isTerminal(frame) && frame.data.promptId === promptId) return out;
  }
}

/** Runs one prompt to its end while watching a live stream; returns its id and the turn's frames. */
export async function completeTurn(s: TestSession, text: string): Promise<{ promptId: string; frames: SseFrame[] }> {
  await using sse = await s.events();
  const admitted = await s.prompt(text);
  if (admitted.status !== 202) throw new Error(`prompt answered ${admitted.status}: ${JSON.stringify(admitted.body)}`);
  return { promptId: admitted.body.promptId, frames: await untilTurnEnds(sse, admitted.body.promptId) };
}
