/**
 * "Branch from here" on each ended turn: a new session that starts from the conversation as it
 * stood after this turn (`POST /session/:id/branch` with the turn's prompt id), opened at once; the
 * session list shows it under its parent. Not offered while a turn runs or waits (the daemon
 * refuses a busy parent, 409 `branch_while_prompt_active`) or once the session ended; the reason
 * is shown beside the disabled button. A refusal is shown beside it too.
 */
import { useState } from "preact/hooks";
import { client, describe, refreshSessions, reportAuth } from "../app-state.ts";
import { go, sessionHash } from "../route.ts";

export function BranchControl({ sessionId, promptId, blocked }: { sessionId: string; promptId: string; blocked: string | null }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const reasonId = `branch-blocked-${promptId}`;
  const branch = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const made = await client.branchSession(sessionId, { promptId });
      await refreshSessions();
      go(sessionHash(made.sessionId));
    } catch (error) {
      if (!reportAuth(error)) setProblem(describe(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        class="quiet branch-here"
        disabled={busy || blocked !== null}
        aria-describedby={blocked !== null ? reasonId : undefined}
        title="A new session that starts from the conversation as it was after this turn"
        onClick={() => void branch()}
      >
        {busy ? "Branching…" : "Branch from here"}
      </button>
      {blocked !== null && (
        <span id={reasonId} class="branch-blocked">
          {blocked}
        </span>
      )}
      {problem && (
        <p role="alert" class="branch-problem">
          {problem}
        </p>
      )}
    </>
  );
}
