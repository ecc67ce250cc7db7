/**
 * The sessions aside: "New session", the list (live and persisted; archived on request). Choosing
 * the session already open opens it again (a load: a closed one comes back from its history).
 */
import { useState } from "preact/hooks";
import type { SessionListItem } from "../../client/index.ts";
import { client, displayName, guard, refreshSessions, reopenKey, sessions, sessionsLoaded, showArchived, workspaceCwd } from "../app-state.ts";
import { go, route, sessionHash } from "../route.ts";

export function SessionList() {
  const [busy, setBusy] = useState(false);
  const r = route.value;
  const selected = r.view === "session" ? r.id : undefined;

  const create = async () => {
    setBusy(true);
    const created = await guard(() => client.createSession({ cwd: workspaceCwd.value, sessionScope: "thread" }));
    setBusy(false);
    if (!created) return;
    await refreshSessions();
    go(sessionHash(created.sessionId));
  };

  return (
    <aside class="sessions">
      <div class="sessions-head">
        <button type="button" class="primary" disabled={busy} onClick={create}>
          New session
        </button>
        <label class="check">
          <input
            type="checkbox"
            checked={showArchived.value}
            onChange={(e) => {
              showArchived.value = e.currentTarget.checked;
              void refreshSessions();
            }}
          />
          Show archived
        </label>
      </div>
      <ul role="list" aria-label="Sessions" class="session-list">
        {sessions.value.map((s) => (
          <SessionRow key={s.sessionId} session={s} selected={s.sessionId === selected} />
        ))}
      </ul>
      {sessionsLoaded.value && sessions.value.length === 0 && <p class="empty">No sessions yet.</p>}
    </aside>
  );
}

function SessionRow({ session, selected }: { session: SessionListItem; selected: boolean }) {
  const state = session.live ? "live" : "closed";
  const name = displayName(session);
  return (
    <li class={selected ? "session selected" : "session"}>
      <button type="button" class="session-open" aria-current={selected ? "true" : undefined} onClick={() => (selected ? reopenKey.value++ : go(sessionHash(session.sessionId)))}>
        <span class="session-name">{name}</span>{" "}
        <span class={`badge ${state}`}>{state}</span>
        {session.isArchived && <span class="badge archived">archived</span>}
        {session.isWaitingForPermission && <span class="badge waiting">needs approval</span>}
      </button>
    </li>
  );
}
