/**
 * "Rewind…" on each ended turn: puts the session back to before that turn. It first shows what the
 * rewind would restore, from the daemon's record of the session's turns
 * (`GET /session/:id/rewind/snapshots`): every file this turn and the later ones changed, and which
 * of them cannot be put back (and why). The user picks files, conversation or both, and confirms.
 * Files changed outside the session since, and those a shell command changed (which the daemon
 * cannot tell from anybody else's edits), are refused by the daemon (409 `rewind_conflict`); they
 * are then listed, and only an explicit "Rewind anyway" overwrites them. A rewind needs the daemon's
 * token (a strict route): without one the control says so.
 */
import { useState } from "preact/hooks";
import { DaemonApiError, type RewindFileChange, type RewindResult } from "../../client/index.ts";
import { client, describe, hasToken, reportAuth } from "../app-state.ts";
import { Visible } from "./visible-text.tsx";

type Preview = { files: RewindFileChange[]; omitted: number } | "not_recorded";

const CHANGE_TEXT: Record<RewindFileChange["change"], string> = { created: "removed again", modified: "put back as it was", deleted: "brought back" };

export function RewindControl({ sessionId, promptId }: { sessionId: string; promptId: string }) {
  const [open, setOpen] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [files, setFiles] = useState(true);
  const [conversation, setConversation] = useState(true);
  const [conflict, setConflict] = useState<string[] | null>(null);
  const [result, setResult] = useState<RewindResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const locked = !hasToken();

  const show = async () => {
    setOpen(true);
    setPreview(null);
    setProblem(null);
    try {
      const turns = await client.rewindSnapshots(sessionId);
      const target = turns.find((t) => t.promptId === promptId);
      if (target === undefined) return setPreview("not_recorded");
      const later = turns.filter((t) => t.turnIndex >= target.turnIndex);
      const byPath = new Map<string, RewindFileChange>();
      for (const t of later) for (const f of t.files) if (!byPath.has(f.path)) byPath.set(f.path, f);
      setPreview({ files: [...byPath.values()], omitted: later.reduce((n, t) => n + (t.filesOmitted ?? 0), 0) });
    } catch (error) {
      if (!reportAuth(error)) setProblem(describe(error));
    }
  };
  const rewind = async (force: boolean) => {
    setBusy(true);
    setProblem(null);
    try {
      // The transcript tells it too, from the daemon's `session_rewound`.
      setResult(await client.rewind(sessionId, promptId, { files, conversation, force }));
      setConflict(null);
    } catch (error) {
      if (error instanceof DaemonApiError && error.code === "rewind_conflict") {
        const listed = (error.body as { files?: unknown } | undefined)?.files;
        setConflict(Array.isArray(listed) ? listed.map((f) => (typeof f === "string" ? f : String((f as { path?: unknown })?.path ?? f))) : []);
      } else if (!reportAuth(error)) setProblem(describe(error));
    } finally {
      setBusy(false);
    }
  };

  if (!open)
    return (
      <button type="button" class="quiet rewind-open" disabled={locked} title={locked ? "Rewinding needs a daemon started with --token" : undefined} onClick={() => void show()}>
        Rewind…
      </button>
    );
  return (
    <div class="rewind card" role="group" aria-label="Rewind to before this turn">
      {result ? (
        <p role="status">
          Rewound. {result.filesChanged.length} file{result.filesChanged.length === 1 ? "" : "s"} put back
          {result.filesFailed.length > 0 ? `; not put back: ${result.filesFailed.join(", ")}` : ""}
          {result.conversationRewound ? "; the conversation goes on from before this turn." : "."}
        </p>
      ) : preview === null ? (
        <p>{problem ?? "Reading what this turn changed…"}</p>
      ) : preview === "not_recorded" ? (
        <p>The daemon has no record of this turn (it ran before this daemon started, or was never checkpointed), so it cannot be rewound.</p>
      ) : (
        <>
          <p>Put the session back to before this turn?</p>
          {preview.files.length === 0 ? (
            <p>This turn and the ones after it changed no file the daemon recorded.</p>
          ) : (
            <ul class="rewind-files" aria-label="Files the rewind puts back">
              {preview.files.map((f) => (
                <li key={f.path}>
                  <code>
                    <Visible text={f.path} />
                  </code>{" "}
                  {f.restorable ? CHANGE_TEXT[f.change] : `cannot be put back${f.reason ? ` (${f.reason.replace(/_/g, " ")})` : ""}`}
                </li>
              ))}
            </ul>
          )}
          {preview.omitted > 0 && <p>{preview.omitted} more changed files were not recorded and stay as they are.</p>}
          <label class="check">
            <input type="checkbox" checked={files} onChange={(e) => setFiles(e.currentTarget.checked)} /> Files
          </label>
          <label class="check">
            <input type="checkbox" checked={conversation} onChange={(e) => setConversation(e.currentTarget.checked)} /> Conversation
          </label>
          {conflict && (
            <p role="alert">
              Changed outside this session since, or by a command whose change svc cannot tell from anybody else's: {conflict.join(", ") || "some files"}. Rewinding anyway
              overwrites those changes.
            </p>
          )}
          <button type="button" class="danger" disabled={busy || (!files && !conversation)} onClick={() => void rewind(conflict !== null)}>
            {conflict ? "Rewind anyway" : "Rewind"}
          </button>
        </>
      )}
      <button type="button" class="quiet" onClick={() => setOpen(false)}>
        {result ? "Close" : "Cancel"}
      </button>
      {problem && preview !== null && <p role="alert">{problem}</p>}
    </div>
  );
}
