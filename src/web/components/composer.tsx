/** The prompt box: Enter sends, Shift+Enter is a newline; Cancel stops the running turn; queued prompts listed. */
import { useState } from "preact/hooks";
import { client, guard } from "../app-state.ts";
import type { TranscriptSnapshot } from "../transcript-model.ts";

export function Composer({ sessionId, snapshot }: { sessionId: string; snapshot: TranscriptSnapshot }) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);

  const send = async () => {
    const prompt = text;
    if (!prompt.trim() || sending) return;
    setSending(true);
    const admitted = await guard(() => client.prompt(sessionId, prompt));
    setSending(false);
    if (admitted) setText("");
  };

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
          rows={3}
          placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line)"
          value={text}
          disabled={Boolean(snapshot.ended)}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <div class="prompt-actions">
          <button type="submit" class="primary" disabled={!text.trim() || sending || Boolean(snapshot.ended)}>
            Send
          </button>
          <button type="button" disabled={!snapshot.running} onClick={() => void guard(() => client.cancel(sessionId))}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
