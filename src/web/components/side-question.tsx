/**
 * The side-question box of a chat (`POST /session/:id/btw`): a question for the session's model,
 * answered beside the conversation, even while a turn runs. The answer shows here, apart from the
 * transcript (it is not part of the conversation and no other client sees it), until the next
 * question or Dismiss. Failures (an agent without side questions, one already being answered)
 * go to the notice banner.
 */
import { useState } from "preact/hooks";
import { Visible } from "./visible-text.tsx";
import { client, guard } from "../app-state.ts";

interface Asked {
  question: string;
  answer: string | null;
}

export function SideQuestion({ sessionId }: { sessionId: string }) {
  const [question, setQuestion] = useState("");
  const [asking, setAsking] = useState(false);
  const [asked, setAsked] = useState<Asked | null>(null);

  const ask = async (e: Event) => {
    e.preventDefault();
    const q = question.trim();
    if (!q || asking) return;
    setAsking(true);
    const reply = await guard(() => client.askSideQuestion(sessionId, q));
    setAsking(false);
    if (reply) {
      setAsked({ question: q, answer: reply.answer });
      setQuestion("");
    }
  };

  return (
    <div class="side-question composer-wide">
      <form class="side-ask" aria-label="Side question" onSubmit={ask}>
        <label for="side-question-input" class="visually-hidden">
          Side question
        </label>
        <input
          id="side-question-input"
          type="text"
          placeholder="By the way… (a side question, kept out of the conversation)"
          value={question}
          maxLength={4096}
          onInput={(e) => setQuestion(e.currentTarget.value)}
        />
        <button type="submit" class="quiet" disabled={asking || question.trim() === ""}>
          {asking ? "Asking…" : "Ask"}
        </button>
      </form>
      {asked && (
        <section class="side-answer" aria-label="Side answer">
          <p class="side-label">
            Side question, not part of the conversation:{" "}
            <q>
              <Visible text={asked.question} />
            </q>
          </p>
          <p class="side-text">{asked.answer === null ? "(no answer)" : <Visible text={asked.answer} multiline />}</p>
          <button type="button" class="quiet" onClick={() => setAsked(null)}>
            Dismiss
          </button>
        </section>
      )}
    </div>
  );
}
