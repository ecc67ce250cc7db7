/**
 * The language of the agents' replies, in the reference daemon's shapes:
 *
 *   POST /language                {language, syncOutputLanguage?} → {language, outputLanguage, refresh: {runtimes, sessions, failed}}
 *   POST /session/:id/language    {language, syncOutputLanguage?} → {language, outputLanguage, refreshed}
 *
 * `language` is one of LANGUAGE_CODES (400 `invalid_language` with `allowed`). The user-level
 * setting is saved in `<data dir>/language.json` (`outputLanguage` only when `syncOutputLanguage`)
 * and then told to the live agent of every trusted workspace (`<prefix>/control/user/language`);
 * an agent that cannot take it (a generic ACP agent, 501) is left out of the counts, one that
 * fails counts in `failed`. It works with no agent running. Every live session gets
 * `language_changed {language, outputLanguage, userLevel: true}`. A session's change is asked of
 * its agent (`<prefix>/control/session/language`: 501 for a generic agent) and published to the
 * session as `language_changed {sessionId, language, outputLanguage, refreshed}`.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { AUTO_LANGUAGE, LANGUAGE_CODES, outputLanguageOf } from "../../config/languages.ts";
import { DaemonError } from "../../errors/daemon-error.ts";
import { setSessionLanguage, setUserLanguage } from "../../runtime/language-controls.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { ClientIdHeaders } from "../schemas/client-id-header.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { notAnObject, registeredClient, SessionIdParams } from "./session-params.ts";
import type { RouteApp } from "./route-app.ts";

const fail = (code: string, message: string, fields?: Record<string, unknown>) => () => new DaemonError(400, code, message, fields).body();

const LanguageBody = t.Object(
  {
    language: t.Union(
      LANGUAGE_CODES.map((c) => t.Literal(c)),
      { description: `The language (\`${AUTO_LANGUAGE}\`: the user's own)`, error: fail("invalid_language", `\`language\` is required and must be one of: ${LANGUAGE_CODES.join(", ")}`, { allowed: LANGUAGE_CODES }) },
    ),
    syncOutputLanguage: t.Optional(t.Boolean({ description: "Also make it the language of the agent's replies", error: fail("invalid_sync_flag", "`syncOutputLanguage` must be a boolean when provided") })),
  },
  { additionalProperties: true, error: notAnObject },
);

const Count = Type.Integer({ minimum: 0 });
const UserLanguageAnswer = t.Object(
  {
    language: t.String(),
    outputLanguage: t.Union([t.String(), t.Null()], { description: "The reply language now saved (a language name or `auto`); null when not synced" }),
    refresh: t.Object({ runtimes: Count, sessions: Count, failed: Count }, { additionalProperties: false, description: "Live agents told, their sessions refreshed, and failures" }),
  },
  { additionalProperties: false },
);
const SessionLanguageAnswer = t.Object(
  { language: t.String(), outputLanguage: t.Union([t.String(), t.Null()]), refreshed: t.Boolean() },
  { additionalProperties: false, description: "As the agent answered (bounded)" },
);

export const languageRoutes = (app: RouteApp, deps: AppDeps) =>
  app
    .post(
      "/language",
      async ({ body }) => {
        const sync = body.syncOutputLanguage === true;
        let saved;
        try {
          // The settings file is touched only by this route: loaded on its first use.
          const { writeUserLanguage } = await import("../../config/user-language.ts");
          saved = writeUserLanguage(deps.config.dataDir, { language: body.language, outputLanguage: sync ? outputLanguageOf(body.language) : null });
        } catch (err) {
          deps.logger.warn("language setting not saved", { error: err instanceof Error ? err.message : String(err) });
          throw new DaemonError(500, "persist_error", "Failed to persist language settings");
        }
        const refresh = { runtimes: 0, sessions: 0, failed: 0 };
        await Promise.all(
          deps.runtimes.scopes().map(async (scope) => {
            const live = scope.trust.trusted ? scope.runtime.current() : null;
            if (!live) return;
            try {
              const result = await setUserLanguage(live, body.language, sync);
              refresh.runtimes++;
              refresh.sessions += result.sessions;
              refresh.failed += result.failed;
            } catch (err) {
              if (err instanceof DaemonError && err.status === 501) return;
              refresh.failed++;
              deps.logger.warn("language not applied by an agent", { workspace: scope.path, error: err instanceof Error ? err.message : String(err) });
            }
          }),
        );
        const outputLanguage = sync ? saved.outputLanguage : null;
        for (const session of deps.sessions.all()) if (!session.isEnded) session.publish("language_changed", { language: body.language, outputLanguage, userLevel: true });
        return { language: body.language, outputLanguage, refresh };
      },
      {
        body: LanguageBody,
        response: { 200: UserLanguageAnswer, ...errorResponses({ body: true, also: [500] }) },
        detail: capability("user_language_sync", { summary: "Set the user's language (and, with syncOutputLanguage, the agents' reply language), saved and told to every live agent" }),
      },
    )
    .post(
      "/session/:id/language",
      async ({ params, body, request }) => {
        const session = deps.sessions.get(params.id);
        const clientId = registeredClient(session, request);
        const live = session.runtime.current();
        if (!live) throw new DaemonError(503, "workspace_runtime_unavailable", "Workspace runtime is not active.", {}, 1);
        const result = await setSessionLanguage(live, session.agentSessionId, body.language, body.syncOutputLanguage === true);
        session.publish("language_changed", { sessionId: session.id, ...result }, clientId === null ? {} : { originatorClientId: clientId });
        return result;
      },
      {
        params: SessionIdParams,
        headers: ClientIdHeaders,
        body: LanguageBody,
        response: { 200: SessionLanguageAnswer, ...errorResponses({ body: true, also: [404, 501, 502, 503, 504] }) },
        detail: capability("session_language", { summary: "Set the language of the session's replies (the built-in agent: from its next turn)" }),
      },
    );
