/**
 * The chat view of one session: header (name, connection, session actions, the parent of a branch), transcript, permission
 * dialog, composer, and a status line (workspace, model, approval mode). Until the session is
 * loaded it says so, and shows no picker values it does not know yet.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { APPROVAL_MODES, type ApprovalMode, type StatusCell } from "../../client/index.ts";
import { client, displayName, guard, hasToken, refreshSessions, reopenKey, sessions } from "../app-state.ts";
import { baseName } from "../format.ts";
import { LiveSession, type ViewConnection } from "../live-session.ts";
import { go, sessionHash } from "../route.ts";
import { rememberTitle } from "../titles.ts";
import { optionForCwd, workspaceLabel, workspaces } from "../workspaces.ts";
import { Composer } from "./composer.tsx";
import { PermissionDialog } from "./permission-dialog.tsx";
import { SideQuestion } from "./side-question.tsx";
import { TranscriptView } from "./transcript-view.tsx";

export function ChatView({ id }: { id: string }) {
  const live = useMemo(() => new LiveSession(id), [id]);
  useEffect(() => {
    void live.start().then(() => refreshSessions());
    return () => live.stop();
  }, [live]);

  const snap = live.snapshot.value;
  const row = sessions.value.find((s) => s.sessionId === id);
  const first = snap?.firstPrompt;
  useEffect(() => {
    if (first) rememberTitle(id, first);
  }, [id, first]);
  const name = snap?.displayName ?? displayName(row ?? { sessionId: id });
  const [renaming, setRenaming] = useState(false);

  const close = async () => {
    live.stop();
    await guard(() => client.closeSession(id));
    await refreshSessions();
    go("#/");
  };
  /** A branch at the latest turn (`POST /session/:id/branch`), opened at once. */
  const branch = async () => {
    const made = await guard(() => client.branchSession(id));
    if (!made) return;
    await refreshSessions();
    go(sessionHash(made.sessionId));
  };
  const parent = row?.parentSessionId === undefined ? undefined : (sessions.value.find((s) => s.sessionId === row.parentSessionId) ?? { sessionId: row.parentSessionId });
  const archive = async () => {
    live.stop();
    if (sessions.value.find((s) => s.sessionId === id)?.live) await guard(() => client.closeSession(id));
    await guard(() => client.archiveSessions([id]));
    await refreshSessions();
    go("#/");
  };

  return (
    <section class="chat" aria-label={`Session ${name}`}>
      <header class="chat-head">
        <div class="chat-title">
          <h1>{name}</h1>
          <Connection state={live.connection.value} />
          <div class="chat-actions">
            {(live.gone.value || snap?.ended) && (
              <button type="button" class="primary" onClick={() => reopenKey.value++}>
                Reopen
              </button>
            )}
            <button type="button" class="quiet" disabled={!snap || snap.running || snap.queued.length > 0 || Boolean(snap.ended) || live.gone.value} title="A new session that starts from this conversation as it is now" onClick={branch}>
              Branch
            </button>
            <button type="button" class="quiet" onClick={() => setRenaming(!renaming)}>
              Rename
            </button>
            <button type="button" class="quiet" onClick={close}>
              Close session
            </button>
            <button type="button" class="quiet" onClick={archive}>
              Archive
            </button>
          </div>
        </div>
        {parent && (
          <p class="branch-of">
            Branch of <a href={sessionHash(parent.sessionId)}>{displayName(parent)}</a>
          </p>
        )}
        {renaming && <RenameForm id={id} current={name} done={() => setRenaming(false)} />}
      </header>
      {snap ? (
        <>
          <TranscriptView
            snapshot={snap}
            workspaceCwd={live.workspaceCwd.value}
            sessionId={id}
            inherited={parent && row?.parentPromptId !== undefined ? { parentId: parent.sessionId, promptId: row.parentPromptId, parentName: displayName(parent) } : undefined}
          />
          {snap.permissions[0] && <PermissionDialog sessionId={id} request={snap.permissions[0]} workspaceCwd={live.workspaceCwd.value} />}
          <NoModelNote live={live} />
          <Composer key={id} sessionId={id} snapshot={snap} />
          <SideQuestion key={id} sessionId={id} />
          <div class="status-line" aria-label="Session status">
            <span class="status-item" title={live.workspaceCwd.value}>
              <span class="status-label">Workspace</span> {sessionWorkspaceName(live.workspaceCwd.value)}
            </span>
            <ModelPicker live={live} />
            <ApprovalPicker live={live} />
          </div>
        </>
      ) : live.connection.value === "failed" ? (
        <div class="state-card failed" role="alert">
          <h2>This session could not be opened</h2>
          <p>{live.failure.value}</p>
          <button type="button" onClick={() => reopenKey.value++}>
            Try again
          </button>
        </div>
      ) : (
        <div class="state-card loading" role="status" aria-label="Loading session">
          <span class="spinner" aria-hidden="true" /> Opening the session…
        </div>
      )}
    </section>
  );
}

/** The name of the workspace at `cwd`: its display name when the daemon serves it, else its folder's. */
function sessionWorkspaceName(cwd: string | undefined): string {
  const w = workspaces.value.find((entry) => entry.cwd === cwd);
  return w ? workspaceLabel(w) : baseName(cwd ?? "");
}

function RenameForm({ id, current, done }: { id: string; current: string; done: () => void }) {
  const [value, setValue] = useState(current);
  const save = async (e: Event) => {
    e.preventDefault();
    const name = value.trim();
    if (!name) return;
    const ok = await guard(() => client.renameSession(id, name));
    if (ok) {
      done();
      await refreshSessions();
    }
  };
  return (
    <form class="rename" onSubmit={save}>
      <label for="rename-input" class="visually-hidden">
        Session name
      </label>
      <input id="rename-input" type="text" value={value} maxLength={200} onInput={(e) => setValue(e.currentTarget.value)} autofocus />
      <button type="submit">Save</button>
    </form>
  );
}

function ModelPicker({ live }: { live: LiveSession }) {
  const models = live.models.value;
  const current = live.snapshot.value?.modelId;
  const choices = current && !models.some((m) => m.modelId === current) ? [{ modelId: current, name: current }, ...models] : models;
  return (
    <label class="picker">
      <span class="status-label">Model</span>
      <select
        aria-label="Model"
        value={current ?? ""}
        disabled={choices.length === 0}
        onChange={(e) => {
          const select = e.currentTarget;
          const modelId = select.value;
          // The select shows the model the daemon confirms (model_switched), not the click.
          select.value = current ?? "";
          void guard(() => client.setModel(live.id, modelId));
        }}
      >
        {choices.length === 0 && <option value="">(agent default)</option>}
        {choices.map((m) => (
          <option key={m.modelId} value={m.modelId}>
            {m.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What each approval mode lets the agent do, said in the picker. */
const MODE_TEXT: Record<ApprovalMode, string> = {
  plan: "plan: read and plan only, change nothing",
  default: "default: ask before edits and commands",
  "auto-edit": "auto-edit: edit files, ask before commands",
  auto: "auto: run what the agent judges safe, ask for the rest",
  yolo: "yolo: run everything without asking",
};

/** Why the approval mode cannot change in this page, shown beside the disabled picker. */
export const NO_TOKEN_REASON = "Locked: changing it needs a daemon started with --token (or SVC_SERVER_TOKEN).";

function ApprovalPicker({ live }: { live: LiveSession }) {
  const current = live.snapshot.value?.approvalMode;
  const modes = live.approvalModes.value;
  const value = APPROVAL_MODES.includes(current as ApprovalMode) ? current : "default";
  const locked = !hasToken();
  return (
    <label class="picker">
      <span class="status-label">Approval</span>
      <select
        aria-label="Approval mode"
        aria-describedby={locked ? "approval-locked" : undefined}
        disabled={locked}
        value={value}
        onChange={(e) => {
          const select = e.currentTarget;
          const mode = select.value as ApprovalMode;
          // The select shows the mode the daemon confirms (approval_mode_changed), not the click.
          select.value = value ?? "default";
          void guard(() => client.setApprovalMode(live.id, mode));
        }}
      >
        {(modes.includes(value as ApprovalMode) ? modes : [value as ApprovalMode, ...modes]).map((m) => (
          <option key={m} value={m}>
            {MODE_TEXT[m] ?? m}
          </option>
        ))}
      </select>
      {locked && (
        <span id="approval-locked" class="locked-reason">
          {NO_TOKEN_REASON}
        </span>
      )}
    </label>
  );
}

/**
 * When the session names no model, its own workspace's preflight may say why (the built-in agent's
 * `auth` cell: no model configured, and what to set): shown above the composer. Nothing is asked
 * while the session's workspace is not known or not served.
 */
function NoModelNote({ live }: { live: LiveSession }) {
  const [hint, setHint] = useState<string | null>(null);
  const none = live.models.value.length === 0 && !live.snapshot.value?.modelId;
  const option = optionForCwd(live.workspaceCwd.value);
  const key = option === null ? null : (option.workspace ?? "");
  useEffect(() => {
    if (!none || option === null) return;
    let gone = false;
    client.workspaceStatus("preflight", option).then(
      (body) => {
        const cells = Array.isArray(body.cells) ? (body.cells as StatusCell[]) : [];
        const auth = cells.find((c) => c.kind === "auth" && c.status === "error");
        if (!gone && auth) setHint([auth.error, auth.hint].filter(Boolean).join(". "));
      },
      () => undefined,
    );
    return () => (gone = true);
  }, [none, key]);
  if (!none || !hint) return null;
  return (
    <p class="no-model composer-wide" role="note" aria-label="No model">
      {hint}
    </p>
  );
}

const CONNECTION_TEXT: Record<ViewConnection, string> = {
  connecting: "connecting",
  live: "live",
  reconnecting: "reconnecting",
  resynced: "resynced",
  offline: "offline",
  failed: "failed",
};

function Connection({ state }: { state: ViewConnection }) {
  return (
    <span role="status" aria-label="Connection" class={`conn ${state}`}>
      {CONNECTION_TEXT[state]}
    </span>
  );
}
