/**
 * Hooks, read-only: the workspace's (the settings files', with whether each runs) and one live
 * session's own. The daemon never sends a hook's command; this shows its event, matcher, source and state.
 */
import { useState } from "preact/hooks";
import type { HookCell, HooksStatus } from "../../../client/index.ts";
import { client, displayName, sessions } from "../../app-state.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { LoadedView, Section, useLoad, StatusErrors } from "./shared.tsx";

export function HooksSection({ workspace, session }: { workspace: boolean; session: boolean }) {
  return (
    <Section id="hooks" title="Hooks">
      {workspace ? <WorkspaceHooks /> : <p class="empty">Workspace hooks: not available from this daemon.</p>}
      {session ? <SessionHooks /> : <p class="empty">Session hooks: not available from this daemon.</p>}
    </Section>
  );
}

function WorkspaceHooks() {
  const [state] = useLoad(() => client.workspaceHooks());
  return (
    <div class="settings-block">
      <h3>Workspace hooks</h3>
      <LoadedView state={state} what="Workspace hooks">
        {(body) => <HookList body={body} label="Workspace hooks" />}
      </LoadedView>
    </div>
  );
}

function SessionHooks() {
  const live = sessions.value.filter((s) => s.live);
  const [picked, setPicked] = useState("");
  const id = live.some((s) => s.sessionId === picked) ? picked : (live[0]?.sessionId ?? "");
  return (
    <div class="settings-block">
      <h3>Session hooks</h3>
      {live.length === 0 ? (
        <p class="empty">No live session in this workspace.</p>
      ) : (
        <>
          <label class="settings-field inline">
            <span>Session</span>
            <select value={id} onChange={(e) => setPicked(e.currentTarget.value)}>
              {live.map((s) => (
                <option key={s.sessionId} value={s.sessionId}>
                  {visibleText(displayName(s))}
                </option>
              ))}
            </select>
          </label>
          <SessionHookList key={id} id={id} />
        </>
      )}
    </div>
  );
}

function SessionHookList({ id }: { id: string }) {
  const [state] = useLoad(() => client.sessionHooks(id), [id]);
  return (
    <LoadedView state={state} what="Session hooks">
      {(body) => <HookList body={body} label="Session hooks" />}
    </LoadedView>
  );
}

function HookList({ body, label }: { body: HooksStatus; label: string }) {
  return (
    <>
      {body.initialized === false && <p class="hint">No agent has started in this workspace yet; its hooks show once a session runs.</p>}
      {body.disabled && <p class="settings-warning">All hooks are disabled (disableAllHooks).</p>}
      {body.hooks.length === 0 ? (
        <p class="empty">No hooks.</p>
      ) : (
        <ul class="settings-list" aria-label={label}>
          {body.hooks.map((h, i) => (
            <li key={i} class="settings-row">
              <span class="settings-name">
                <Visible text={hookTitle(h)} />
              </span>
              <span class="settings-meta">
                <Visible text={[h.matcher ? `on ${h.matcher}` : "every tool", h.source, h.config.timeout ? `${h.config.timeout} s` : ""].filter(Boolean).join(" · ")} />
              </span>
              <span class="settings-meta">{h.enabled ? "runs" : `off${h.disabledReason ? ` (${h.disabledReason.replace(/_/g, " ")})` : ""}`}</span>
            </li>
          ))}
        </ul>
      )}
      <StatusErrors errors={body.errors} />
    </>
  );
}

const hookTitle = (h: HookCell) => [h.eventName ?? "hook", h.config.name, h.config.description].filter(Boolean).join(" — ");
