/**
 * Side questions (sessions/side-questions.ts), tag `session_btw`:
 *
 *   POST /session/:id/btw {question} → {sessionId, answer: string | null, model?}
 *
 * Answered beside the conversation: nothing enters the agent's history, the prompt queue or the
 * session's events, and a running turn goes on undisturbed. 400 `invalid_question`; 404 no live
 * session; 409 `side_question_in_progress` (one at a time per session) or `session_closed` (it
 * ended meanwhile); 429 `side_questions_busy`; 501 `agent_control_unsupported` (an agent without a
 * side-question path); 502 the agent failed; 504 `side_question_timeout`.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { checkQuestion, MAX_QUESTION_BYTES, SideQuestions } from "../../sessions/side-questions.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { registeredClient, SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const invalidQuestion = () =>
  new DaemonError(400, "invalid_question", `\`question\` must be a non-empty string of at most ${MAX_QUESTION_BYTES} UTF-8 bytes`, { maxBytes: MAX_QUESTION_BYTES }).body();

const BtwBody = t.Object(
  { question: t.String({ error: invalidQuestion, description: `The side question (non-empty, at most ${MAX_QUESTION_BYTES} UTF-8 bytes; trimmed)` }) },
  { error: invalidQuestion },
);

const BtwReply = t.Object({
  sessionId: t.String(),
  answer: t.Union([t.String(), t.Null()], { description: "The model's answer (bounded); null when it gave none" }),
  model: t.Optional(t.String({ description: "The model that answered, when the agent says (the built-in agent does)" })),
});

export const sideQuestionRoutes = (app: RouteApp, deps: AppDeps) => {
  const questions = new SideQuestions(deps.sessions.store);
  return app.post(
    "/session/:id/btw",
    async ({ params, body, request }) => {
      const session = deps.sessions.get(params.id);
      registeredClient(session, request);
      return await questions.ask(session, checkQuestion(body.question), request.signal);
    },
    {
      params: SessionIdParams,
      headers: ClientIdHeaders,
      body: BtwBody,
      response: { 200: BtwReply, ...errorResponses({ body: true, also: [404, 409, 501, 502, 504] }) },
      detail: capability("session_btw", {
        summary: "Ask the session's model a side question with the session's context; the answer stays out of the conversation, and a running turn goes on",
      }),
    },
  );
};
