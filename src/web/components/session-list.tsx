/**
 * The sessions aside: "New session" (Alt+N), a search box, and the list (live and persisted;
 * archived on request; the current workspace's, or with "All workspaces" every served one's, each
 * row naming its workspace): pinned ones first (each row's star pins or unpins it), then the
 * workspace's session groups as collapsible sections in the daemon's order (session-groups.tsx;
 * each row's select moves it into a group or out), the others grouped by the day each session
 * last changed, each branch indented right after its parent when
 * both are in the same group. Choosing the session already open opens it again (a load: a closed
 * one comes back from its history).
 */
import { useEffect, useState } from "preact/hooks";
import type { SessionListItem } from "../../client/index.ts";
import { allWorkspaces, client, creating, displayName, guard, refreshSessions, reopenKey, sessions, sessionsLoaded, showArchived } from "../app-state.ts";
import { dateGroup } from "../format.ts";
import { go, route, sessionHash } from "../route.ts";
import { newSession } from "../shortcuts.ts";
import { sessionGroups } from "../session-groups.ts";
import { currentWorkspace, workspaceLabel, workspaces, type WorkspaceEntry } from "../workspaces.ts";
import { GroupPicker, GroupSection, NewGroup } from "./session-groups.tsx";
import { Visible } from "./visible-text.tsx";
import { untrustedReason } from "./workspace-switcher.tsx";

/** `open`: shown on a narrow screen (where the list is a panel the top bar opens); wide screens always show it. */
export function SessionList({ open }: { open: boolean }) {
  const [query, setQuery] = useState("");
  const r = route.value;
  const selected = r.view === "session" ? r.id : undefined;
  const busy = creating.value;
  const ws = currentWorkspace.value;
  // The daemon refuses sessions of an untrusted registered workspace (the primary is exempt).
  const refused = ws !== undefined && !ws.primary && !ws.trusted;

  const create = async () => {
    const target = currentWorkspace.value;
    if (creating.value || (target && !target.primary && !target.trusted)) return;
    creating.value = true;
    go("#/");
    const created = await guard(() => client.createSession({ cwd: target?.cwd, sessionScope: "thread" }));
    creating.value = false;
    if (!created) return;
    await refreshSessions();
    go(sessionHash(created.sessionId));
  };
  useEffect(() => newSession.register(() => void create()), []);

  const everywhere = allWorkspaces.value && workspaces.value.length > 1;
  const needle = query.trim().toLowerCase();
  const shown = needle ? sessions.value.filter((s) => displayName(s).toLowerCase().includes(needle) || s.sessionId.startsWith(needle)) : sessions.value;
  const depths = branchDepths(shown);
  // Group sections: the listed workspace's groups (not in the "All workspaces" view, whose rows are of many workspaces).
  const known = everywhere ? null : sessionGroups.value;
  const groups = known?.workspace === currentWorkspace.value?.cwd ? (known?.groups ?? []) : [];
  const grouped = new Set(groups.map((g) => g.id));
  const groupOf = (s: SessionListItem) => (s.isPinned !== true && typeof s.groupId === "string" && grouped.has(s.groupId) ? s.groupId : null);
  const row = (s: SessionListItem, heading: string | undefined) => {
    const owner = everywhere ? workspaces.value.find((w) => w.cwd === s.workspaceCwd) : undefined;
    const rowRefused = owner ? !owner.primary && !owner.trusted : refused;
    return (
      <SessionRow key={s.sessionId} session={s} selected={s.sessionId === selected} group={heading} refused={rowRefused} owner={owner} depth={depths.get(s.sessionId) ?? 0} grouping={groups.length > 0} />
    );
  };
  const dayGroups = groupByDay(shown.filter((s) => groupOf(s) === null));
  const pinned = dayGroups[0]?.[0] === "Pinned" ? dayGroups.slice(0, 1) : [];
  const days = dayGroups.slice(pinned.length);
  const byDay = (list: [string, SessionListItem[]][]) => list.flatMap(([heading, rows]) => treeOrder(rows).map((s, i) => row(s, i === 0 ? heading : undefined)));

  return (
    <aside id="sessions-panel" class={open ? "sessions open" : "sessions"} aria-label="Sessions panel">
      <div class="sessions-head">
        <button type="button" class="primary new-session" disabled={busy || refused} aria-describedby={refused ? "sessions-refused" : undefined} aria-keyshortcuts="Alt+N" onClick={create}>
          {busy ? "Creating…" : "New session"}
          <kbd class="key" aria-hidden="true">
            Alt+N
          </kbd>
        </button>
        {refused && (
          <p id="sessions-refused" class="locked-reason">
            {untrustedReason(ws)}
          </p>
        )}
        <label for="session-search" class="visually-hidden">
          Search sessions
        </label>
        <input id="session-search" type="search" placeholder="Search sessions" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
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
        {!everywhere && <NewGroup />}
        {workspaces.value.length > 1 && (
          <label class="check">
            <input
              type="checkbox"
              checked={allWorkspaces.value}
              onChange={(e) => {
                allWorkspaces.value = e.currentTarget.checked;
                void refreshSessions();
              }}
            />
            All workspaces
          </label>
        )}
      </div>
      <ul role="list" aria-label="Sessions" class="session-list">
        {byDay(pinned)}
        {groups.map((g, index) => {
          const members = shown.filter((s) => groupOf(s) === g.id);
          // While searching, a group without a match is left out.
          if (needle && members.length === 0) return null;
          return (
            <GroupSection key={g.id} group={g} index={index} count={members.length}>
              {treeOrder(members).map((s) => row(s, undefined))}
            </GroupSection>
          );
        })}
        {byDay(days)}
      </ul>
      {!sessionsLoaded.value && <p class="empty">Loading sessions…</p>}
      {sessionsLoaded.value && sessions.value.length === 0 && <p class="empty">No sessions yet. Start one with New session.</p>}
      {sessionsLoaded.value && sessions.value.length > 0 && shown.length === 0 && <p class="empty">No session matches “{query}”.</p>}
    </aside>
  );
}

/** Pinned sessions first, then sessions by the day they last changed (newest group first; the daemon's order kept within one). */
function groupByDay(list: SessionListItem[]): [string, SessionListItem[]][] {
  const now = Date.now();
  const groups = new Map<string, SessionListItem[]>();
  if (list.some((s) => s.isPinned === true)) groups.set("Pinned", []);
  for (const s of list) {
    const at = Date.parse(s.updatedAt ?? s.createdAt ?? "");
    const group = s.isPinned === true ? "Pinned" : Number.isNaN(at) ? "Earlier" : dateGroup(at, now);
    let rows = groups.get(group);
    if (!rows) groups.set(group, (rows = []));
    rows.push(s);
  }
  return [...groups];
}

/** Deepest indent of a branch in the list (deeper ones are shown at this depth). */
const MAX_BRANCH_DEPTH = 4;

/** Each listed session's depth in the branch tree: 0 for one whose parent is not listed. */
function branchDepths(list: SessionListItem[]): Map<string, number> {
  const parents = new Map(list.map((s) => [s.sessionId, s.parentSessionId]));
  const depths = new Map<string, number>();
  for (const s of list) {
    let depth = 0;
    // Bounded walk: a cycle (never made by the daemon) or a deep chain stops at the cap.
    for (let p = s.parentSessionId; p !== undefined && parents.has(p) && depth < MAX_BRANCH_DEPTH; p = parents.get(p)) depth++;
    depths.set(s.sessionId, depth);
  }
  return depths;
}

/** `rows` with each branch right after its parent (when both are in `rows`), the daemon's order kept otherwise. */
function treeOrder(rows: SessionListItem[]): SessionListItem[] {
  const ids = new Set(rows.map((s) => s.sessionId));
  const children = new Map<string, SessionListItem[]>();
  for (const s of rows)
    if (s.parentSessionId !== undefined && ids.has(s.parentSessionId) && s.parentSessionId !== s.sessionId) {
      let list = children.get(s.parentSessionId);
      if (!list) children.set(s.parentSessionId, (list = []));
      list.push(s);
    }
  const out: SessionListItem[] = [];
  const seen = new Set<string>();
  const visit = (s: SessionListItem) => {
    if (seen.has(s.sessionId)) return;
    seen.add(s.sessionId);
    out.push(s);
    for (const child of children.get(s.sessionId) ?? []) visit(child);
  };
  for (const s of rows) if (s.parentSessionId === undefined || !ids.has(s.parentSessionId)) visit(s);
  // Anything left sits in a cycle: listed in the daemon's order.
  for (const s of rows) visit(s);
  return out;
}

/**
 * One session; the first of a day group carries the group's heading; a branch is indented under its
 * parent. `refused`: the daemon would refuse to open it (an untrusted workspace): listed, not
 * offered. `owner`: its workspace, named on the row in the "All workspaces" view.
 */
function SessionRow(props: { session: SessionListItem; selected: boolean; group: string | undefined; refused: boolean; owner: WorkspaceEntry | undefined; depth: number; grouping: boolean }) {
  const { session, selected, group, refused, owner, depth, grouping } = props;
  const state = session.live ? "live" : "closed";
  const pinned = session.isPinned === true;
  const name = displayName(session);
  return (
    <li class={selected ? "session selected" : "session"} style={depth > 0 ? { paddingInlineStart: `${depth}rem` } : undefined}>
      {group && <h2 class="group-title">{group}</h2>}
      <button type="button" class="session-open" disabled={refused} aria-describedby={refused ? "sessions-refused" : undefined} aria-current={selected ? "true" : undefined} onClick={() => (selected ? reopenKey.value++ : go(sessionHash(session.sessionId)))}>
        {session.parentSessionId !== undefined && (
          <span class="branch-mark" title="A branch" aria-label="branch">
            ↳{" "}
          </span>
        )}
        <span class="session-name" id={`session-name-${session.sessionId}`}>
          {name}
        </span>{" "}
        {owner && (
          <span class="badge workspace" title={owner.cwd}>
            <Visible text={workspaceLabel(owner)} />
          </span>
        )}
        {session.hasActivePrompt && <span class="badge working">working</span>}
        <span class={`badge ${state}`}>{state}</span>
        {session.isArchived && <span class="badge archived">archived</span>}
        {session.isWaitingForPermission && <span class="badge waiting">needs approval</span>}
      </button>
      <button
        type="button"
        class={pinned ? "quiet session-pin pinned" : "quiet session-pin"}
        aria-pressed={pinned}
        aria-label={pinned ? "Unpin" : "Pin"}
        aria-describedby={`session-name-${session.sessionId}`}
        title={pinned ? "Unpin" : "Pin to the top"}
        onClick={async () => {
          if (await guard(() => client.organizeSession(session.sessionId, { isPinned: !pinned }))) void refreshSessions();
        }}
      >
        {pinned ? "★" : "☆"}
      </button>
      {grouping && <GroupPicker sessionId={session.sessionId} groupId={session.groupId} describedBy={`session-name-${session.sessionId}`} />}
    </li>
  );
}
