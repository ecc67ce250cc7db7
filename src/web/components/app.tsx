/** The shell: main navigation, the sessions list beside the routed view, the token prompt and the notice banner. */
import { useEffect } from "preact/hooks";
import { needsToken, notice, refreshSessions, reloadKey, reopenKey } from "../app-state.ts";
import { go, route } from "../route.ts";
import { ChatView } from "./chat-view.tsx";
import { FilesView } from "./files-view.tsx";
import { SessionList } from "./session-list.tsx";
import { TokenPrompt } from "./token-prompt.tsx";
import { TrustNotice } from "./trust-notice.tsx";
import { WorkspacePanel } from "./workspace-panel.tsx";

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

  if (needsToken.value) return <TokenPrompt />;
  const r = route.value;
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">svc</span>
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
        </nav>
      </header>
      {notice.value && (
        <div class="notice" role="alert">
          <span>{notice.value}</span>
          <button type="button" class="quiet" aria-label="Dismiss" onClick={() => (notice.value = null)}>
            ×
          </button>
        </div>
      )}
      <TrustNotice />
      <div class="layout">
        <SessionList />
        <main class="main" key={`${key}`}>
          {r.view === "session" ? (
            <ChatView key={`${r.id}:${reopenKey.value}`} id={r.id} />
          ) : r.view === "workspace" ? (
            <WorkspacePanel />
          ) : r.view === "files" ? (
            <FilesView path={r.path} />
          ) : (
            <p class="empty">Pick a session, or start a new one.</p>
          )}
        </main>
      </div>
    </div>
  );
}
