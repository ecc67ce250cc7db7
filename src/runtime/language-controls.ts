/**
 * The language requests behind `POST /session/:id/language` and `POST /language`, in Qwen Code
 * 0.24.4's shapes (spec acp-agents §4.2): `<prefix>/control/session/language {sessionId, language,
 * syncOutputLanguage}` → `{language, outputLanguage, refreshed}` and `<prefix>/control/user/language
 * {language, syncOutputLanguage}` → `{language, sessions, failed}`. An agent without the method (a
 * generic ACP agent) is 501 `agent_control_unsupported`; an answer missing what its shape needs is
 * 502 `agent_protocol_error`; strings are bounded (MAX_AGENT_STRING).
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { boundedText, control } from "./profile-controls.ts";
import type { Live } from "./workspace-runtime.ts";

export interface SessionLanguageResult {
  readonly language: string;
  readonly outputLanguage: string | null;
  readonly refreshed: boolean;
}

export interface UserLanguageResult {
  readonly sessions: number;
  readonly failed: number;
}

const protocolError = (what: string) => new DaemonError(502, "agent_protocol_error", `The agent answered ${what} in an unknown shape`, { errorKind: "protocol_error" });
const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : null);

export async function setSessionLanguage(live: Live, sessionId: string, language: string, syncOutputLanguage: boolean): Promise<SessionLanguageResult> {
  const answer = await control<Record<string, unknown> | null>(live, "session/language", { sessionId, language, syncOutputLanguage }, "set the session's language");
  const resolved = boundedText(answer?.language);
  if (resolved === null) throw protocolError("the language change");
  return { language: resolved, outputLanguage: boundedText(answer?.outputLanguage), refreshed: answer?.refreshed === true };
}

export async function setUserLanguage(live: Live, language: string, syncOutputLanguage: boolean): Promise<UserLanguageResult> {
  const answer = await control<Record<string, unknown> | null>(live, "user/language", { language, syncOutputLanguage }, "set the user's language");
  const sessions = count(answer?.sessions);
  const failed = count(answer?.failed);
  if (sessions === null || failed === null) throw protocolError("the user language change");
  return { sessions, failed };
}
