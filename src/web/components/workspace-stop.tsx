/**
 * Stopping a workspace's agent, from the workspace switcher: the daemon's preview first
 * (`GET /workspaces/runtime-stop-options`: whether an agent runs, what would stop it, the sessions it
 * would close), then the stop of exactly that preview. When the workspace changed meanwhile the
 * daemon refuses the preview (409 `workspace_runtime_stop_stale`) and the new one is shown.
 */
import { useEffect, useState } from "preact/hooks";
import { confirmationFor, type RuntimeStopPreview } from "../../client/index.ts";
import { client, describe, displayName, refreshSessions, reportAuth } from "../app-state.ts";
import { workspaceLabel, type WorkspaceEntry } from "../workspaces.ts";

/** What the daemon says blocks a stop, in words. */
const BLOCKED: Record<string, string> = {
  not_live: "no agent is running",
  session_start_pending: "a session is starting",
  stopping: "it is stopping already",
  untrusted: "the folder is not trusted",
};

export function ConfirmStop({ w, done }: { w: WorkspaceEntry; done: () => void }) {
  const [preview, setPreview] = useState<RuntimeStopPreview | "unknown" | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    setPreview(null);
    client.runtimeStopOptions().then(
      (options) => setPreview(options.workspaces.find((p) => p.workspaceId === w.id) ?? "unknown"),
      (error) => {
        if (!reportAuth(error)) setProblem(describe(error));
        setPreview("unknown");
      },
    );
  }, [w.id, reads]);
  const name = workspaceLabel(w);
  const stoppable = typeof preview === "object" && preview !== null && preview.canStop && preview.channelId !== undefined;
  const stop = async () => {
    if (!stoppable) return;
    setBusy(true);
    setProblem(null);
    try {
      await client.stopWorkspaceRuntime(w.id, confirmationFor(preview));
      void refreshSessions();
      done();
    } catch (error) {
      if (reportAuth(error)) return setBusy(false);
      const stale = (error as { code?: string }).code === "workspace_runtime_stop_stale";
      setProblem(stale ? "What runs there changed; here it is again. Confirm once more to stop it." : describe(error));
      if (stale) setReads((n) => n + 1);
      setBusy(false);
    }
  };
  let text: string;
  if (preview === null) text = `Checking what runs in ${name}…`;
  else if (preview === "unknown") text = `What runs in ${name} could not be read, so its agent is not stopped from here.`;
  else if (!stoppable) text = `Nothing to stop in ${name}: ${preview.blockedReasons.map((r) => BLOCKED[r] ?? r).join(", ") || "no agent is running"}.`;
  else {
    const names = preview.sessions.map(displayName);
    text = `Stop the agent of ${name}? ${
      names.length === 0 ? "No session is open in it." : `${names.length === 1 ? "This session closes" : `These ${names.length} sessions close`}, a running turn included: ${names.join(", ")}.`
    } Their history stays; a session can be reopened, which starts the agent again.`;
  }
  return (
    <div class="ws-confirm" role="group" aria-label={`Stop the agent of ${name}?`}>
      <p>{text}</p>
      {stoppable && (
        <button type="button" class="danger" disabled={busy} onClick={stop}>
          Stop agent
        </button>
      )}
      <button type="button" class="quiet" onClick={done}>
        {stoppable ? "Keep it running" : "Close"}
      </button>
      {problem && <p role="alert">{problem}</p>}
    </div>
  );
}
