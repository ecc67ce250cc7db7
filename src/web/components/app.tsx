/**
 * The shell: the top bar (brand, workspace, main navigation, theme), the sessions list beside the
 * routed view, the token prompt, the notice banner and the long-text viewer.
 */
import { useEffect, useState } from "preact/hooks";
import { creating, needsToken, notice, refreshSessions, reloadKey, reopenKey } from "../app-state.ts";
import { go, route } from "../route.ts";
import { currentWorkspace } from "../workspaces.ts";
import { ChatView } from "./chat-view.tsx";
import { FilesView } from "./files-view.tsx";
import { LongTextViewer } from "./long-text.tsx";
import { SessionList } from "./session-list.tsx";
import { SettingsView } from "./settings/settings-view.tsx";
import { ThemeToggle } from "./theme-toggle.tsx";
import { TokenPrompt } from "./token-prompt.tsx";
import { TrustNotice } from "./trust-notice.tsx";
import { WorkspacePanel } from "./workspace-panel.tsx";
import { WorkspaceSwitcher } from "./workspace-switcher.tsx";

/** How often the sessions list refreshes while the page is visible (live states change under us). */
const LIST_REFRESH_MS = 10_000;

export function App() {
  const key = reloadKey.value;
  useEffect(() => {
    // main.tsx asked for the first list already; a new token (key > 0) asks again.
    if (key > 0) void refreshSessions();
    const timer = setInterval(() => document.visibilityState === "visible" && void refreshSessions(), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [key]);

  // On a narrow screen the sessions list is a panel opened from the top bar: open on the home
  // view, closed when a session or another view opens.
  const r = route.value;
  const [listOpen, setListOpen] = useState(r.view === "home");
  useEffect(() => setListOpen(r.view === "home"), [r]);

  if (needsToken.value) return <TokenPrompt />;
  const ws = currentWorkspace.value;
  return (
    <div class="shell">
      <header class="topbar">
        <button type="button" class="quiet sessions-toggle" aria-expanded={listOpen} aria-controls="sessions-panel" onClick={() => setListOpen(!listOpen)}>
          ☰<span class="visually-hidden"> Sessions list</span>
        </button>
        <span class="brand">svc</span>
        <WorkspaceSwitcher />
        <nav aria-label="Main">
          <button type="button" aria-current={r.view === "home" || r.view === "session" ? "page" : undefined} onClick={() => go("#/")}>
            Sessions
          </button>
          <button type="button" aria-current={r.view === "workspace" ? "page" : undefined} onClick={() => go("#/workspace")}>
            Workspace
          </button>
          <button type="button" aria-current={r.view === "files" ? "page" : undefined} onClick={() => go("#/files")}>
            Files
          </button>
          <button type="button" aria-current={r.view === "settings" ? "page" : undefined} onClick={() => go("#/settings")}>
            Settings
          </button>
        </nav>
        <ThemeToggle />
      </header>
      {notice.value && (
        <div class="notice" role="alert">
          <span>{notice.value}</span>
          <button type="button" class="quiet" aria-label="Dismiss" onClick={() => (notice.value = null)}>
            ×
          </button>
        </div>
      )}
      {(ws === undefined || ws.primary) && <TrustNotice />}
      <div class="layout">
        <SessionList open={listOpen} />
        {/* Keyed by the workspace too: its views start over in the one chosen. */}
        <main class="main" key={`${key}:${ws?.id ?? ""}`}>
          {r.view === "session" ? (
            <ChatView key={`${r.id}:${reopenKey.value}`} id={r.id} />
          ) : r.view === "workspace" ? (
            <WorkspacePanel />
          ) : r.view === "files" ? (
            <FilesView path={r.path} />
          ) : r.view === "settings" ? (
            <SettingsView section={r.section} />
          ) : creating.value ? (
            <div class="state-card loading" role="status" aria-label="Creating session">
              <span class="spinner" aria-hidden="true" /> Starting a new session…
            </div>
          ) : (
            <div class="state-card home">
              <h1>Pick a session, or start a new one.</h1>
              <p class="hint">
                <kbd class="key">Alt+N</kbd> new session · <kbd class="key">/</kbd> prompt box · <kbd class="key">Esc</kbd> stop the turn · <kbd class="key">Alt+A</kbd> /{" "}
                <kbd class="key">Alt+D</kbd> allow or deny a request
              </p>
            </div>
          )}
        </main>
      </div>
      <LongTextViewer />
    </div>
  );
}
