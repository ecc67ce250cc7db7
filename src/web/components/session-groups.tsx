/**
 * Session groups in the sessions aside: "New group" (a name and one of the daemon's colors), and
 * each group as a collapsible section of the list whose heading renames it, moves it up or down
 * (swapping orders with its neighbour) or deletes it (after a confirmation; its sessions fall back
 * to the ungrouped part of the list, as the daemon does). Names are the daemon's untrusted text,
 * shown with their hidden characters marked. A refused change (a taken name 409, a bad name 400,
 * the group limit) is shown beside the form it came from and keeps what was typed.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { SessionGroup } from "../../client/index.ts";
import { client, describe, notice, refreshSessions, reportAuth } from "../app-state.ts";
import { collapsedGroups, moveOrders, sessionGroups, toggleGroup } from "../session-groups.ts";
import { visibleSegments } from "../visible-text.ts";
import { currentWorkspace } from "../workspaces.ts";
import { Visible } from "./visible-text.tsx";

/** The daemon's bound on a group name (`MAX_GROUP_NAME_CHARS`); the daemon checks it too. */
const NAME_MAX = 64;

/** Runs a group change against the listed workspace; the list refreshes after it. Returns the failure's text, or null. */
async function change(fn: (workspace: string) => Promise<unknown>): Promise<string | null> {
  const workspace = sessionGroups.value?.workspace;
  if (workspace === undefined) return "The workspace's groups are not known yet.";
  try {
    await fn(workspace);
    await refreshSessions();
    return null;
  } catch (error) {
    // The list may have changed under us (another client): read it again either way.
    void refreshSessions();
    return reportAuth(error) ? "" : describe(error);
  }
}

/** "New group": a button that opens a small form. */
export function NewGroup() {
  const [open, setOpen] = useState(false);
  const groups = sessionGroups.value;
  // No catalog (no groups kept), or the groups of a workspace the list has just left.
  if (groups === null || groups.workspace !== currentWorkspace.value?.cwd) return null;
  if (!open)
    return (
      <button type="button" class="quiet new-group" onClick={() => setOpen(true)}>
        New group
      </button>
    );
  return (
    <GroupForm
      label="New group"
      submit="Create"
      initial=""
      colors={groups.colors}
      save={(name, color) => change((workspace) => client.createSessionGroup(name, color ?? groups.colors[0] ?? "blue", { workspace }))}
      done={() => setOpen(false)}
    />
  );
}

/** A group's name (and, for a new group, its color); stays open with the daemon's refusal shown until it saves or is cancelled. */
function GroupForm(props: { label: string; submit: string; initial: string; colors?: string[]; save: (name: string, color: string | undefined) => Promise<string | null>; done: () => void }) {
  const [name, setName] = useState(props.initial);
  const [color, setColor] = useState(props.colors?.[0]);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    const failed = await props.save(name.trim(), color);
    setBusy(false);
    if (failed === null) props.done();
    else setProblem(failed || null);
  };
  return (
    <form class="group-form" aria-label={props.label} onSubmit={onSubmit} onKeyDown={(e) => e.key === "Escape" && props.done()}>
      <input type="text" aria-label="Group name" value={name} maxLength={NAME_MAX} required autofocus onInput={(e) => setName(e.currentTarget.value)} />
      {props.colors && props.colors.length > 0 && (
        <select aria-label="Group color" value={color} onChange={(e) => setColor(e.currentTarget.value)}>
          {props.colors.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      )}
      <button type="submit" disabled={busy}>
        {props.submit}
      </button>
      <button type="button" class="quiet" onClick={props.done}>
        Cancel
      </button>
      {problem && (
        <p role="alert" class="group-problem">
          {problem}
        </p>
      )}
    </form>
  );
}

/** A preset color, or a `#rrggbb` one; anything else is not used as a color. */
const swatch = (color: string) => (/^(red|orange|yellow|green|blue|purple)$/.test(color) ? `var(--group-${color})` : /^#[0-9a-f]{6}$/i.test(color) ? color : "transparent");

/** One group's section: its heading (toggle and actions) and, unless collapsed, its sessions. */
export function GroupSection({ group, index, count, children }: { group: SessionGroup; index: number; count: number; children: ComponentChildren }) {
  const [editing, setEditing] = useState<"rename" | "delete" | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const groups = sessionGroups.value?.groups ?? [];
  const collapsed = collapsedGroups.value.has(group.id);
  const nameId = `group-name-${group.id}`;
  const move = async (by: -1 | 1) => {
    setProblem(null);
    const orders = moveOrders(groups, index, by);
    const failed = await change(async (workspace) => {
      for (const o of orders) await client.updateSessionGroup(o.id, { order: o.order }, { workspace });
    });
    if (failed) setProblem(failed);
  };
  const remove = async () => {
    const failed = await change((workspace) => client.deleteSessionGroup(group.id, { workspace }));
    setEditing(null);
    if (failed) setProblem(failed);
  };
  return (
    <li class="group-section" aria-labelledby={nameId}>
      <div class="group-head">
        <h2 class="group-title">
          <button type="button" class="quiet group-toggle" aria-expanded={!collapsed} aria-controls={`group-${group.id}`} onClick={() => toggleGroup(group.id)}>
            <span aria-hidden="true">{collapsed ? "▸" : "▾"} </span>
            <span class="group-swatch" aria-hidden="true" style={{ background: swatch(group.color) }} />
            <span id={nameId} class="group-name">
              <Visible text={group.name} />
            </span>
            <span class="group-count"> ({count})</span>
          </button>
        </h2>
        <button type="button" class="quiet group-action" aria-label="Rename group" aria-describedby={nameId} title="Rename" onClick={() => setEditing(editing === "rename" ? null : "rename")}>
          ✎
        </button>
        <button type="button" class="quiet group-action" aria-label="Move group up" aria-describedby={nameId} title="Move up" disabled={index === 0} onClick={() => void move(-1)}>
          ↑
        </button>
        <button type="button" class="quiet group-action" aria-label="Move group down" aria-describedby={nameId} title="Move down" disabled={index === groups.length - 1} onClick={() => void move(1)}>
          ↓
        </button>
        <button type="button" class="quiet group-action" aria-label="Delete group" aria-describedby={nameId} title="Delete" onClick={() => setEditing(editing === "delete" ? null : "delete")}>
          ✕
        </button>
      </div>
      {editing === "rename" && (
        <GroupForm
          label="Rename group"
          submit="Save"
          initial={group.name}
          save={(name) => change((workspace) => client.updateSessionGroup(group.id, { name }, { workspace }))}
          done={() => setEditing(null)}
        />
      )}
      {editing === "delete" && (
        <div class="group-confirm" role="group" aria-label="Delete group">
          <p>
            Delete the group “<Visible text={group.name} />”? {count === 1 ? "Its session becomes" : `Its ${count} sessions become`} ungrouped.
          </p>
          <button type="button" class="danger" onClick={() => void remove()}>
            Delete
          </button>
          <button type="button" class="quiet" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </div>
      )}
      {problem && (
        <p role="alert" class="group-problem">
          {problem}
        </p>
      )}
      {!collapsed && (
        <ul role="list" id={`group-${group.id}`} class="session-list group-members" aria-labelledby={nameId}>
          {children}
        </ul>
      )}
    </li>
  );
}

/** A session's group: a select of the listed workspace's groups ("No group" takes it out). */
export function GroupPicker({ sessionId, groupId, describedBy }: { sessionId: string; groupId: string | null | undefined; describedBy: string }) {
  const groups = sessionGroups.value?.groups ?? [];
  const current = groups.some((g) => g.id === groupId) ? (groupId ?? "") : "";
  return (
    <select
      class="session-group"
      aria-label="Group"
      aria-describedby={describedBy}
      value={current}
      onChange={(e) => {
        const select = e.currentTarget;
        const next = select.value;
        // The select shows what the daemon confirms (the refreshed list), not the choice.
        select.value = current;
        void change(() => client.organizeSession(sessionId, { groupId: next === "" ? null : next })).then((failed) => {
          if (failed) notice.value = failed;
        });
      }}
    >
      <option value="">No group</option>
      {groups.map((g) => (
        <option key={g.id} value={g.id}>
          {visibleOption(g.name)}
        </option>
      ))}
    </select>
  );
}

/** A name as option text (an option holds text only): its hidden characters as their marks. */
const visibleOption = (name: string) =>
  visibleSegments(name)
    .map((s) => s.text)
    .join("");
