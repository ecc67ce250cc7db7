/**
 * The prompt box: Enter sends, Shift+Enter is a newline; the Stop control (Esc) sits inside it while
 * a turn runs, above it a line says what the agent is doing and for how long.
 *
 * Nothing typed is lost: the box gives up the sent text at once, so what is typed while the prompt
 * travels stays, and the sent text comes back (before it) if the daemon refuses it. The draft is
 * kept per session in `sessionStorage`, so a reload keeps it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { client, guard } from "../app-state.ts";
import { formatDuration } from "../format.ts";
import { composerFocus, stopTurn } from "../shortcuts.ts";
import type { TranscriptSnapshot } from "../transcript-model.ts";

/** A draft past this many characters is not kept across reloads (sessionStorage is small). */
const MAX_DRAFT_CHARS = 100_000;
const draftKey = (sessionId: string) => `svc.draft.${sessionId}`;

function readDraft(sessionId: string): string {
  try {
    return sessionStorage.getItem(draftKey(sessionId)) ?? "";
  } catch {
    return "";
  }
}

function keepDraft(sessionId: string, text: string): void {
  try {
    if (text && text.length <= MAX_DRAFT_CHARS) sessionStorage.setItem(draftKey(sessionId), text);
    else sessionStorage.removeItem(draftKey(sessionId));
  } catch {
    // A full or disabled storage keeps no draft; the box still works.
  }
}

export function Composer({ sessionId, snapshot }: { sessionId: string; snapshot: TranscriptSnapshot }) {
  const [text, setTextState] = useState(() => readDraft(sessionId));
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const current = useRef(text);
  const setText = (next: string) => {
    current.current = next;
    setTextState(next);
    keepDraft(sessionId, next);
  };
  useEffect(() => composerFocus.register(() => box.current?.focus()), []);
  useEffect(() => (snapshot.running ? stopTurn.register(() => void guard(() => client.cancel(sessionId))) : undefined), [snapshot.running, sessionId]);

  const send = async () => {
    const prompt = current.current;
    if (!prompt.trim() || sending) return;
    setSending(true);
    setText("");
    const admitted = await guard(() => client.prompt(sessionId, prompt));
    setSending(false);
    if (!admitted) setText(current.current ? `${prompt}\n${current.current}` : prompt);
  };
  const stop = () => void guard(() => client.cancel(sessionId));
  const ended = Boolean(snapshot.ended);

  return (
    <div class="composer">
      {snapshot.queued.length > 0 && (
        <section class="queued" aria-label="Pending prompts">
          <h2>Pending prompts</h2>
          <ul>
            {snapshot.queued.map((q) => (
              <li key={q.promptId}>{q.text}</li>
            ))}
          </ul>
        </section>
      )}
      {snapshot.running && <Activity since={snapshot.runningSince} thinking={snapshot.thinking} waiting={snapshot.permissions.length > 0} />}
      <form
        class="prompt-form"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label for="prompt-input" class="visually-hidden">
          Prompt
        </label>
        <textarea
          id="prompt-input"
          ref={box}
          rows={3}
          placeholder={ended ? "This session has ended; reopen it to go on." : "Ask the agent… (Enter sends, Shift+Enter for a new line)"}
          value={text}
          disabled={ended}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            } else if (e.key === "Escape" && snapshot.running) {
              e.preventDefault();
              stop();
            }
          }}
        />
        <div class="prompt-actions">
          {snapshot.running && (
            <button type="button" class="stop" aria-keyshortcuts="Escape" onClick={stop}>
              <span class="stop-icon" aria-hidden="true" />
              Stop <kbd class="key" aria-hidden="true">Esc</kbd>
            </button>
          )}
          <button type="submit" class="primary" disabled={!text.trim() || sending || ended}>
            Send
          </button>
        </div>
      </form>
    </div>
  );
}

/** "Working · 12 s" (or thinking, or waiting for an answer) while a turn runs. */
function Activity({ since, thinking, waiting }: { since: number | undefined; thinking: boolean; waiting: boolean }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const label = waiting ? "Waiting for your answer" : thinking ? "Thinking" : "Working";
  return (
    <div class={`activity${thinking ? " thinking" : ""}`} role="status" aria-label="Agent activity">
      <span class="pulse" aria-hidden="true" />
      <span>{label}…</span>
      {since !== undefined && <span class="elapsed">{formatDuration(Math.max(0, now - since))}</span>}
    </div>
  );
}

