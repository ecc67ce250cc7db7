/**
 * The workspace switcher in the top bar: the current workspace's name (its path on hover, and beside
 * it when another workspace goes by the same name; hidden characters marked), and a panel listing every workspace the daemon serves. Choosing one makes the session list, "New
 * session", the files and the workspace views work there. A registered workspace can be renamed
 * and removed (after a confirmation naming the live sessions that close), any trusted one's agent
 * stopped (after the daemon's preview, `workspace-stop.tsx`), and a folder registered
 * (path, optional name, kept across restarts or not). Those changes need the daemon's token: without
 * one they are locked, with the reason. An untrusted workspace says so and why; what the daemon
 * would refuse there (starting or reopening a session) is not offered.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { client, describe, displayName, hasToken, refreshSessions, refreshWorkspaces, reportAuth, sessions, sessionsLoaded } from "../app-state.ts";
import { go } from "../route.ts";
import { chooseWorkspace, currentWorkspace, labelShared, persistedIds, workspaceLabel, workspaces, type WorkspaceEntry } from "../workspaces.ts";
import { Visible } from "./visible-text.tsx";
import { ConfirmStop } from "./workspace-stop.tsx";

export const WORKSPACE_LOCKED_REASON = "Locked: registering, renaming and removing workspaces and stopping their agents need a daemon started with --token (or SVC_SERVER_TOKEN).";

/** Why an untrusted workspace offers no sessions, and how to trust it. */
export const untrustedReason = (w: Pick<WorkspaceEntry, "cwd">) =>
  `Not trusted: the daemon refuses to start or reopen its sessions until the folder is trusted (svc trust ${w.cwd}).`;

/** Makes `w` the current workspace (the primary: the default, nothing remembered). */
export function switchTo(w: WorkspaceEntry): void {
  chooseWorkspace(w.primary ? null : w.id);
  sessions.value = [];
  sessionsLoaded.value = false;
  if (location.hash.startsWith("#/session/")) go("#/");
  void refreshSessions();
}

export function WorkspaceSwitcher() {
  const [open, setOpen] = useState(false);
  const current = currentWorkspace.value;
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    void refreshWorkspaces();
    const outside = (e: MouseEvent) => panel.current && !panel.current.parentElement!.contains(e.target as Node) && setOpen(false);
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, [open]);
  return (
    <div class="ws-switcher">
      <button
        type="button"
        class="quiet workspace-name"
        title={current?.cwd}
        aria-expanded={open}
        aria-controls="workspaces-panel"
        aria-label={`Workspace: ${current ? workspaceLabel(current) : "loading"}`}
        onClick={() => setOpen(!open)}
      >
        <span class="ws-current">{current ? <Visible text={workspaceLabel(current)} /> : "…"}</span>
        {current && labelShared(current) && <span class="ws-path"> {current.cwd}</span>}
        {current && !current.trusted && <span class="badge untrusted">untrusted</span>}
        <span aria-hidden="true"> ▾</span>
      </button>
      {open && (
        <div
          id="workspaces-panel"
          class="ws-panel card"
          role="region"
          aria-label="Workspaces"
          ref={panel}
          onKeyDown={(e) => {
            if (e.key !== "Escape") return;
            e.stopPropagation();
            setOpen(false);
          }}
        >
          <ul class="ws-list" aria-label="Workspaces served">
            {workspaces.value.map((w) => (
              <WorkspaceRow key={w.id} w={w} current={w.id === current?.id} chosen={() => setOpen(false)} />
            ))}
          </ul>
          <RegisterForm added={() => setOpen(false)} />
        </div>
      )}
    </div>
  );
}

function WorkspaceRow({ w, current, chosen }: { w: WorkspaceEntry; current: boolean; chosen: () => void }) {
  const [mode, setMode] = useState<"idle" | "rename" | "remove" | "stop">("idle");
  const locked = !hasToken();
  const name = workspaceLabel(w);
  return (
    <li class={current ? "ws-row current" : "ws-row"}>
      <button
        type="button"
        class="ws-choose"
        title={w.cwd}
        aria-current={current ? "true" : undefined}
        onClick={() => {
          if (!current) switchTo(w);
          chosen();
        }}
      >
        <span class="ws-label">
          <Visible text={name} />
        </span>
        <span class="ws-path">{w.cwd}</span>
      </button>
      <span class="ws-badges">
        {labelShared(w) && <span class="badge">same name</span>}
        {w.primary && <span class="badge">primary</span>}
        {persistedIds.value.has(w.id) && <span class="badge">saved</span>}
        {!w.trusted && <span class="badge untrusted">untrusted</span>}
      </span>
      {!w.trusted && <p class="ws-reason">{untrustedReason(w)}</p>}
      {mode === "idle" && (
        <span class="ws-actions">
          {w.removable && (
            <button type="button" class="quiet" disabled={locked} aria-describedby={locked ? "ws-locked" : undefined} onClick={() => setMode("rename")}>
              Rename<span class="visually-hidden"> {name}</span>
            </button>
          )}
          {(w.primary || w.trusted) && (
            <button type="button" class="quiet" disabled={locked} aria-describedby={locked ? "ws-locked" : undefined} onClick={() => setMode("stop")}>
              Stop agent<span class="visually-hidden"> of {name}</span>
            </button>
          )}
          {w.removable && (
            <button type="button" class="quiet danger" disabled={locked} aria-describedby={locked ? "ws-locked" : undefined} onClick={() => setMode("remove")}>
              Remove<span class="visually-hidden"> {name}</span>
            </button>
          )}
        </span>
      )}
      {mode === "rename" && <RenameWorkspace w={w} done={() => setMode("idle")} />}
      {mode === "remove" && <ConfirmRemoval w={w} done={() => setMode("idle")} />}
      {mode === "stop" && <ConfirmStop w={w} done={() => setMode("idle")} />}
    </li>
  );
}

function RenameWorkspace({ w, done }: { w: WorkspaceEntry; done: () => void }) {
  const [value, setValue] = useState(w.displayName ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      // An empty name clears it: the folder's name shows again.
      await client.renameWorkspace(w.id, value.trim() || null);
      await refreshWorkspaces();
      done();
    } catch (error) {
      if (!reportAuth(error)) setProblem(describe(error));
    }
  };
  return (
    <form class="rename ws-form" onSubmit={save}>
      <label for={`ws-name-${w.id}`} class="visually-hidden">
        Display name of {w.cwd}
      </label>
      <input id={`ws-name-${w.id}`} type="text" value={value} maxLength={200} placeholder={workspaceLabel({ cwd: w.cwd })} onInput={(e) => setValue(e.currentTarget.value)} autofocus />
      <button type="submit">Save</button>
      <button type="button" class="quiet" onClick={done}>
        Cancel
      </button>
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}

/**
 * The removal's confirmation: names every live session that closes (their history stays), read from
 * the live-state route, and confirms with exactly those; if they changed meanwhile the daemon
 * refuses (409 `workspace_sessions_changed`) and the list is read again. When the list cannot be
 * read, it says so and the removal is not offered.
 */
function ConfirmRemoval({ w, done }: { w: WorkspaceEntry; done: () => void }) {
  const [live, setLive] = useState<{ ids: string[]; names: string[] } | "unknown" | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    setLive(null);
    client.liveSessions(w.id).then(
      (answer) => setLive({ ids: answer.sessions.map((s) => s.sessionId), names: answer.sessions.map(displayName) }),
      (error) => {
        if (!reportAuth(error)) setProblem(describe(error));
        setLive("unknown");
      },
    );
  }, [w.id, reads]);
  const remove = async () => {
    if (live === null || live === "unknown") return;
    setBusy(true);
    setProblem(null);
    try {
      // Confirmed with the live sessions named: they close even while a turn runs.
      await client.removeWorkspace(w.id, { force: true, expectedSessionIds: live.ids });
      if (currentWorkspace.value?.id === w.id) {
        const primary = workspaces.value.find((x) => x.primary);
        if (primary) switchTo(primary);
      }
      await refreshWorkspaces();
      done();
    } catch (error) {
      if (reportAuth(error)) return setBusy(false);
      const changed = (error as { code?: string }).code === "workspace_sessions_changed";
      setProblem(changed ? "The sessions open in it changed; here they are again. Confirm once more to remove it." : describe(error));
      if (changed) setReads((n) => n + 1);
      setBusy(false);
    }
  };
  const name = workspaceLabel(w);
  return (
    <div class="ws-confirm" role="group" aria-label={`Remove ${name}?`}>
      {live === null ? (
        <p>Checking what is open in {name}…</p>
      ) : live === "unknown" ? (
        <p>Which sessions are open in {name} could not be read, so it is not removed from here. Try again later.</p>
      ) : (
        <p>
          Remove {name} from this daemon?{" "}
          {live.ids.length === 0
            ? "No session is open in it."
            : `${live.ids.length === 1 ? "This live session closes" : `These ${live.ids.length} live sessions close`}: ${live.names.join(", ")}.`}{" "}
          Its history stays on disk; the folder is not touched.
        </p>
      )}
      <button type="button" class="danger" disabled={live === null || live === "unknown" || busy} onClick={remove}>
        Remove {name}
      </button>
      <button type="button" class="quiet" onClick={done}>
        Keep it
      </button>
      {problem && <p role="alert">{problem}</p>}
    </div>
  );
}

/** `added`: called once a registered workspace is the current one. */
function RegisterForm({ added }: { added: () => void }) {
  const [path, setPath] = useState("");
  const [name, setName] = useState("");
  const [persist, setPersist] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const locked = !hasToken();
  const add = async (e: Event) => {
    e.preventDefault();
    if (!path.trim()) return;
    setBusy(true);
    setProblem(null);
    try {
      const registered = await client.registerWorkspace({ cwd: path.trim(), ...(name.trim() ? { displayName: name.trim() } : {}), persist });
      setPath("");
      setName("");
      await refreshWorkspaces();
      const entry = workspaces.value.find((w) => w.id === registered.id);
      if (entry) {
        switchTo(entry);
        added();
      }
    } catch (error) {
      if (!reportAuth(error)) setProblem(describe(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="ws-register" aria-label="Add a workspace" onSubmit={add}>
      <h2>Add a workspace</h2>
      <label for="ws-path">Folder (absolute path)</label>
      <input id="ws-path" type="text" value={path} disabled={locked} required placeholder="/home/me/project" onInput={(e) => setPath(e.currentTarget.value)} />
      <label for="ws-display">Display name (optional)</label>
      <input id="ws-display" type="text" value={name} disabled={locked} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
      <label class="check">
        <input type="checkbox" checked={persist} disabled={locked} onChange={(e) => setPersist(e.currentTarget.checked)} />
        Keep it after the daemon restarts
      </label>
      <button type="submit" class="primary" disabled={locked || busy} aria-describedby={locked ? "ws-locked" : undefined}>
        {busy ? "Adding…" : "Add workspace"}
      </button>
      {locked && (
        <p id="ws-locked" class="locked-reason">
          {WORKSPACE_LOCKED_REASON}
        </p>
      )}
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}
