/**
 * Language: the language of the agents' replies, set for the user (`POST /language`: saved and
 * told to every live agent) or for one live session. The daemon does not report the saved
 * language, so "current" is the last one this page set (kept in this browser).
 */
import { useState } from "preact/hooks";
import { client, displayName, sessions } from "../../app-state.ts";
import { visibleText } from "../../visible-text.ts";
import { attempt, OutcomeLine, Section, type Outcome } from "./shared.tsx";

/** The codes the daemon accepts (its 400 `invalid_language` lists them too). */
const LANGUAGES: readonly [string, string][] = [
  ["auto", "The user's own (auto)"],
  ["en", "English"],
  ["zh", "Chinese"],
  ["zh-TW", "Traditional Chinese"],
  ["ru", "Russian"],
  ["de", "German"],
  ["ja", "Japanese"],
  ["pt", "Portuguese"],
  ["fr", "French"],
  ["ca", "Catalan"],
];
const LAST_KEY = "svc.settings.language";
const USER = "";

export function LanguageSection({ user, session }: { user: boolean; session: boolean }) {
  const live = session ? sessions.value.filter((s) => s.live) : [];
  const [language, setLanguage] = useState(localStorage.getItem(LAST_KEY) ?? "auto");
  const [target, setTarget] = useState(user ? USER : (live[0]?.sessionId ?? USER));
  const [sync, setSync] = useState(true);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [last, setLast] = useState(localStorage.getItem(LAST_KEY));

  async function apply(e: Event) {
    e.preventDefault();
    setBusy(true);
    const done =
      target === USER
        ? await attempt(
            () => client.setLanguage(language, sync),
            (a) => `Language set to ${a.language}${a.outputLanguage ? `, replies in ${a.outputLanguage}` : ""}; ${a.refresh.runtimes} running agents told, ${a.refresh.sessions} sessions refreshed${a.refresh.failed ? `, ${a.refresh.failed} failed` : ""}.`,
            "Setting the language",
            setOutcome,
          )
        : await attempt(
            () => client.setSessionLanguage(target, language, sync),
            (a) => `The session's language is ${a.language}${a.outputLanguage ? `, replies in ${a.outputLanguage}` : ""}${a.refreshed ? "" : " (from its next turn)"}.`,
            "Setting the session's language",
            setOutcome,
          );
    setBusy(false);
    if (done && target === USER) {
      localStorage.setItem(LAST_KEY, language);
      setLast(language);
    }
  }

  if (!user && !session) return null;
  return (
    <Section id="language" title="Language">
      <p class="hint">{last ? `Last set from this browser: ${last}.` : "The daemon does not report the saved language; none set from this browser yet."}</p>
      <form class="settings-form" aria-label="Language" onSubmit={(e) => void apply(e)}>
        <label class="settings-field inline">
          <span>Language</span>
          <select value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
            {LANGUAGES.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label class="settings-field inline">
          <span>Apply to</span>
          <select value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            {user && <option value={USER}>Every agent (user setting)</option>}
            {live.map((s) => (
              <option key={s.sessionId} value={s.sessionId}>
                Session: {visibleText(displayName(s))}
              </option>
            ))}
          </select>
        </label>
        <label class="settings-check">
          <input type="checkbox" checked={sync} onChange={(e) => setSync(e.currentTarget.checked)} /> Also the language of the replies
        </label>
        <div class="settings-actions">
          <button type="submit" class="primary" disabled={busy}>
            Set language
          </button>
        </div>
      </form>
      <OutcomeLine outcome={outcome} />
    </Section>
  );
}
