/** The chat view of one session: header (name, pickers, session actions, connection), transcript, permission dialog, composer. */
import { useEffect, useMemo, useState } from "preact/hooks";
import { APPROVAL_MODES, type ApprovalMode } from "../../client/index.ts";
import { client, displayName, guard, refreshSessions, reopenKey, sessions } from "../app-state.ts";
import { LiveSession } from "../live-session.ts";
import { go } from "../route.ts";
import { Composer } from "./composer.tsx";
import { PermissionDialog } from "./permission-dialog.tsx";
import { TranscriptView } from "./transcript-view.tsx";

export function ChatView({ id }: { id: string }) {
  const live = useMemo(() => new LiveSession(id), [id]);
  useEffect(() => {
    void live.start().then(() => refreshSessions());
    return () => live.stop();
  }, [live]);

  const snap = live.snapshot.value;
  const row = sessions.value.find((s) => s.sessionId === id);
  const name = snap?.displayName ?? displayName(row ?? { sessionId: id });
  const [renaming, setRenaming] = useState(false);

  const close = async () => {
    live.stop();
    await guard(() => client.closeSession(id));
    await refreshSessions();
    go("#/");
  };
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
          <span role="status" aria-label="Connection" class={`conn ${live.connection.value}`}>
            {live.connection.value}
          </span>
        </div>
        <div class="chat-controls">
          <ModelPicker live={live} />
          <ApprovalPicker live={live} />
          <button type="button" onClick={() => setRenaming(!renaming)}>
            Rename
          </button>
          <button type="button" onClick={close}>
            Close session
          </button>
          <button type="button" onClick={archive}>
            Archive
          </button>
          {(live.gone.value || snap?.ended) && (
            <button type="button" class="primary" onClick={() => reopenKey.value++}>
              Reopen
            </button>
          )}
        </div>
        {renaming && <RenameForm id={id} current={name} done={() => setRenaming(false)} />}
      </header>
      {snap ? (
        <>
          <TranscriptView snapshot={snap} workspaceCwd={live.workspaceCwd.value} />
          {snap.permissions[0] && <PermissionDialog sessionId={id} request={snap.permissions[0]} workspaceCwd={live.workspaceCwd.value} />}
          <Composer sessionId={id} snapshot={snap} />
        </>
      ) : (
        <p class="empty">Loading…</p>
      )}
    </section>
  );
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
      <span>Model</span>
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

function ApprovalPicker({ live }: { live: LiveSession }) {
  const current = live.snapshot.value?.approvalMode;
  const modes = live.approvalModes.value;
  const value = APPROVAL_MODES.includes(current as ApprovalMode) ? current : "default";
  return (
    <label class="picker">
      <span>Approval mode</span>
      <select
        aria-label="Approval mode"
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
            {m}
          </option>
        ))}
      </select>
    </label>
  );
}
