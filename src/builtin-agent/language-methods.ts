/**
 * The language controls, in the shapes of the reference agent's `qwen/control/session/language`
 * and `qwen/control/user/language` (spec acp-agents §4.2):
 *
 *   svc/control/session/language {sessionId, language, syncOutputLanguage?} → {language, outputLanguage, refreshed}
 *   svc/control/user/language {language, syncOutputLanguage?} → {language, sessions, failed}
 *
 * The built-in agent has no interface language of its own, so a session's `language` is the
 * language its replies are in from the next turn (the system prompt says so), whatever
 * `syncOutputLanguage` says; `auto` means the user's language. The user-level setting is the
 * daemon's (`<data dir>/language.json`, written before it asks); the agent reads it at each turn,
 * so this only reports the sessions it reaches: those without a language of their own follow it.
 * An unknown language is `-32602`, an unknown session `-32002`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { LANGUAGE_CODES, outputLanguageOf } from "../config/languages.ts";
import type { AgentSession } from "./agent-session.ts";

export interface LanguageDeps {
  readonly sessions: ReadonlyMap<string, AgentSession>;
  readonly session: (sessionId: string) => AgentSession;
}

const languageParams =
  (withSession: boolean): acp.ParamsParser<{ sessionId: string; language: string; sync: boolean }> =>
  (params) => {
    const p = (params ?? {}) as Record<string, unknown>;
    if (withSession && (typeof p.sessionId !== "string" || p.sessionId === "")) throw acp.RequestError.invalidParams(undefined, "Invalid or missing sessionId");
    if (typeof p.language !== "string" || !LANGUAGE_CODES.includes(p.language)) throw acp.RequestError.invalidParams(undefined, `Invalid language; must be one of: ${LANGUAGE_CODES.join(", ")}`);
    if (p.syncOutputLanguage !== undefined && typeof p.syncOutputLanguage !== "boolean") throw acp.RequestError.invalidParams(undefined, "syncOutputLanguage must be a boolean");
    return { sessionId: withSession ? (p.sessionId as string) : "", language: p.language, sync: p.syncOutputLanguage === true };
  };

export function registerLanguageMethods(app: acp.AgentApp, deps: LanguageDeps): void {
  app
    .onRequest("svc/control/session/language", languageParams(true), ({ params }) => {
      const session = deps.session(params.sessionId);
      session.outputLanguage = outputLanguageOf(params.language);
      return { language: params.language, outputLanguage: session.outputLanguage, refreshed: true };
    })
    .onRequest("svc/control/user/language", languageParams(false), ({ params }) => {
      const following = [...deps.sessions.values()].filter((s) => s.outputLanguage === null).length;
      return { language: params.language, sessions: params.sync ? following : 0, failed: 0 };
    });
}
