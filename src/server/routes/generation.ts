/**
 * Text about a session, outside its conversation (sessions/session-generation.ts):
 *   POST /session/:id/recap     → {sessionId, recap, source, model?, reason?}     (tag session_recap)
 *   POST /session/:id/generate  → an SSE stream in the reference's shape          (tag session_generation)
 *   GET  /session/:id/turn-index (and the qualified form) → the session's turns   (tag session_transcript)
 * A recap and a `kind` generation work for live and persisted sessions (from the journal); a free
 * `prompt` generation needs a live session of the built-in agent (else 501
 * `generation_not_supported`, as the reference answers for an agent without it).
 *
 * The generation stream: `: connected`, then `started {model, modelSource}`, one `delta {seq, text}`
 * (the whole text: the agent answers at once), then `done {requestId, model, modelSource,
 * inputTokens?, outputTokens?}`, or `error {code, message}`; every `data:` is `{v: 1, type, ...}`.
 * `modelSource` is `main` for the session's model and `local` for text built by the daemon.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { SessionHistory } from "../../sessions/session-history.ts";
import { askModel, MAX_GENERATE_PROMPT_BYTES, readDigest, recap, title } from "../../sessions/session-generation.ts";
import { MAX_TURN_LIMIT, turnIndex } from "../../sessions/turn-index.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ERROR_BODY } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { queryInteger } from "../schemas/query-integer.ts";
import { SessionIdParams } from "./session-params.ts";
import { QUALIFIED_TAG, QualifiedParams } from "./workspace-forms.ts";
import type { RouteApp } from "./route-app.ts";

const source = t.Union([t.Literal("model"), t.Literal("local")], { description: "model: the session's model wrote it (built-in agent); local: the daemon built it from the journal" });
const reason = t.Optional(
  t.Union([t.Literal("agent_cannot"), t.Literal("not_live"), t.Literal("model_failed"), t.Literal("model_empty")], { description: "why the text is local" }),
);
const RecapReply = t.Object({
  sessionId: t.String(),
  recap: t.Union([t.String(), t.Null()], { description: "null when the session has no conversation yet" }),
  source,
  model: t.Optional(t.String()),
  reason,
});

const PROMPT_ERROR = `\`prompt\` must be a non-empty string no larger than ${MAX_GENERATE_PROMPT_BYTES} UTF-8 bytes`;
const invalidPrompt = () => new DaemonError(400, "invalid_prompt", PROMPT_ERROR).body();
const GenerateBody = t.Union(
  [
    t.Object(
      { prompt: t.String({ error: invalidPrompt, description: `a stateless prompt (at most ${MAX_GENERATE_PROMPT_BYTES} UTF-8 bytes), answered by the session's model without its conversation` }), kind: t.Optional(t.Never({ error: invalidPrompt })) },
      { additionalProperties: true, error: invalidPrompt },
    ),
    t.Object(
      { kind: t.Union([t.Literal("title"), t.Literal("recap")], { description: "svc: generate this about the session instead of a prompt", error: invalidPrompt }), prompt: t.Optional(t.Never({ error: invalidPrompt })) },
      { additionalProperties: true, error: invalidPrompt },
    ),
  ],
  { description: "`prompt` or `kind`, not both", error: invalidPrompt },
);

const TurnIndexQuery = t.Object({
  limit: t.Optional(queryInteger(1, MAX_TURN_LIMIT, "Turns per page (default: the newest 100)", () => new DaemonError(400, "invalid_transcript_limit", `\`limit\` must be 1 to ${MAX_TURN_LIMIT}`, { maxLimit: MAX_TURN_LIMIT }))),
  start: t.Optional(queryInteger(0, Number.MAX_SAFE_INTEGER, "First turn's ordinal (needs `snapshot`)", () => new DaemonError(400, "invalid_transcript_cursor", "`start` must be a whole number"))),
  snapshot: t.Optional(t.String({ maxLength: 1024, description: "`snapshot` of an earlier page: the index as it was then" })),
});
const TurnIndexReply = t.Object({
  v: t.Literal(1),
  sessionId: t.String(),
  snapshot: t.String(),
  totalTurns: Type.Integer({ minimum: 0 }),
  start: Type.Integer({ minimum: 0 }),
  turns: t.Array(
    t.Object({
      ordinal: Type.Integer({ minimum: 0 }),
      turnId: t.String(),
      kind: t.Literal("prompt"),
      promptId: t.String(),
      timestamp: t.Optional(t.String()),
      label: t.String({ description: "the prompt's text, one line, cut" }),
      detail: t.Optional(t.String({ description: "the end of the agent's answer, one line, cut" })),
    }),
  ),
  startTime: t.String(),
  lastUpdated: t.String(),
});

const errorJson = (description: string) => ({ description, content: { "application/json": { schema: { $ref: `#/components/schemas/${ERROR_BODY}` } } } });
const GENERATE_RESPONSES = {
  200: { description: "The generation stream (see the route file's header)", content: { "text/event-stream": { schema: { type: "string" as const } } } },
  400: errorJson("`invalid_prompt`: neither or both of `prompt` and `kind`, or a prompt out of bounds"),
  401: errorJson("Missing or wrong bearer token"),
  403: errorJson("Refused by the Host or CORS allowlist, or an untrusted workspace"),
  404: errorJson("No such session (a `prompt` needs a live one)"),
  413: errorJson("A body over the cap"),
  429: errorJson("The rate limit"),
  500: errorJson("Internal failure"),
  501: errorJson("`generation_not_supported`: the session's agent has no model path for a free prompt"),
  503: errorJson("The catalog or the workspace runtime is unavailable"),
};

const frame = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ v: 1, type, ...data })}\n\n`;

/** The stream: `: connected` at once, the rest when `work` resolves. */
function generationStream(work: Promise<{ text: string; model: string; modelSource: "main" | "local"; inputTokens?: number; outputTokens?: number } | { error: string; message: string }>): Response {
  const requestId = crypto.randomUUID();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(": connected\n\n"));
      const result = await work.catch(() => ({ error: "generation_failed", message: "Generation failed" }));
      if ("error" in result) controller.enqueue(encoder.encode(frame("error", { code: result.error, message: result.message })));
      else {
        const { text, model, modelSource, ...usage } = result;
        controller.enqueue(encoder.encode(frame("started", { model, modelSource }) + frame("delta", { seq: 0, text }) + frame("done", { requestId, model, modelSource, ...usage })));
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no" } });
}

export const generationRoutes = (app: RouteApp, deps: AppDeps) => {
  const history = new SessionHistory(deps.sessions, deps.sessions.store);
  return app
    .post(
      "/session/:id/recap",
      async ({ params }) => {
        const found = history.find(params.id);
        return { sessionId: params.id, ...(await recap(found.live, readDigest(deps.sessions.store, params.id))) };
      },
      {
        params: SessionIdParams,
        response: { 200: RecapReply, ...errorResponses({ also: [404] }) },
        detail: capability("session_recap", { summary: "A recap of the session so far (its model's for the built-in agent, else built from the journal); not added to the conversation" }),
      },
    )
    .post(
      "/session/:id/generate",
      ({ params, body }) => {
        const invalid = () => new DaemonError(400, "invalid_prompt", PROMPT_ERROR);
        if ("kind" in body) {
          const found = history.find(params.id);
          const digest = readDigest(deps.sessions.store, params.id);
          const made = body.kind === "title" ? title(found.live, digest).then((r) => ({ ...r, text: r.title })) : recap(found.live, digest).then((r) => ({ ...r, text: r.recap }));
          return generationStream(
            made.then((r) =>
              r.text === null ? { error: "nothing_to_generate", message: "The session has no conversation yet" } : { text: r.text, model: r.model ?? "local", modelSource: r.source === "model" ? ("main" as const) : ("local" as const) },
            ),
          );
        }
        const { prompt } = body;
        if (prompt.trim() === "" || Buffer.byteLength(prompt) > MAX_GENERATE_PROMPT_BYTES) throw invalid();
        const session = deps.sessions.get(params.id);
        const live = session.runtime.current();
        if (live === null || live.profile.extensionPrefix !== "svc") throw new DaemonError(501, "generation_not_supported", "Stateless generation is not supported by this session's agent");
        return generationStream(
          askModel(session, prompt, undefined, 2048).then((r) =>
            "text" in r ? { text: r.text, model: r.model, modelSource: "main" as const, ...(r.inputTokens === undefined ? {} : { inputTokens: r.inputTokens }), ...(r.outputTokens === undefined ? {} : { outputTokens: r.outputTokens }) } : { error: "generation_failed", message: "Generation failed" },
          ),
        );
      },
      {
        params: SessionIdParams,
        body: GenerateBody,
        detail: { ...capability("session_generation", { summary: "Generate text with the session's model outside its conversation (`prompt`), or a title or recap of the session (`kind`); an SSE stream" }), responses: GENERATE_RESPONSES },
      },
    )
    .get(
      "/session/:id/turn-index",
      ({ params, query }) => {
        history.find(params.id);
        return turnIndex(deps.sessions.store, params.id, query);
      },
      {
        params: SessionIdParams,
        query: TurnIndexQuery,
        response: { 200: TurnIndexReply, ...errorResponses({ also: [404, 413] }) },
        detail: capability("session_transcript", { summary: "The session's turns, one per prompt, oldest first (a page of the newest by default)" }),
      },
    )
    .get(
      "/workspaces/:workspace/session/:id/turn-index",
      ({ params, query }) => {
        const workspace = deps.runtimes.resolve(params.workspace).path;
        const found = history.find(params.id);
        if (found.workspace !== workspace) throw new DaemonError(404, "session_not_found", `No session with id "${params.id}"`, { sessionId: params.id });
        return turnIndex(deps.sessions.store, params.id, query);
      },
      {
        params: t.Composite([QualifiedParams, SessionIdParams]),
        query: TurnIndexQuery,
        response: { 200: TurnIndexReply, ...errorResponses({ also: [404, 413] }) },
        detail: capability(["session_transcript", QUALIFIED_TAG], { summary: "The session's turns (the named workspace)" }),
      },
    );
};
