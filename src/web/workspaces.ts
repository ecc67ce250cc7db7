/**
 * The daemon's workspaces (`/capabilities`' `workspaces`: the primary first, then the registered
 * ones) and the one this browser works in. The choice is remembered per browser (localStorage,
 * `svc.workspace`: the workspace's id); a remembered workspace the daemon no longer serves falls
 * back to the primary, and the page says so once.
 *
 * Views name the selected workspace through `workspaceOption()`: nothing for the primary (its
 * legacy routes), its id for another (the `/workspaces/:workspace/…` routes).
 */
import { computed, signal } from "@preact/signals";
import type { Capabilities, WorkspaceOption } from "../client/index.ts";
import { baseName } from "./format.ts";

export type WorkspaceEntry = NonNullable<Capabilities["workspaces"]>[number];

export const SELECTED_WORKSPACE_KEY = "svc.workspace";

/** Every workspace the daemon serves, once `/capabilities` answered. */
export const workspaces = signal<WorkspaceEntry[]>([]);
/** Ids of the registrations the daemon keeps across restarts (`GET /workspace-registrations`). */
export const persistedIds = signal<ReadonlySet<string>>(new Set());
/** The id this browser chose; null for the primary. */
export const selectedId = signal<string | null>(localStorage.getItem(SELECTED_WORKSPACE_KEY));

/** The workspace the views work in: the chosen one while the daemon serves it, else the primary. */
export const currentWorkspace = computed<WorkspaceEntry | undefined>(() => {
  const list = workspaces.value;
  return list.find((w) => w.id === selectedId.value) ?? list.find((w) => w.primary);
});

/** The option a workspace route of the current workspace takes (none for the primary). */
export function workspaceOption(): WorkspaceOption {
  const w = currentWorkspace.value;
  return w && !w.primary ? { workspace: w.id } : {};
}

/**
 * The option of the workspace at `cwd` (a session's): none for the primary, null while the cwd is
 * not known or names no workspace the daemon serves (never the primary's answer in its place).
 */
export function optionForCwd(cwd: string | undefined): WorkspaceOption | null {
  const w = cwd === undefined ? undefined : workspaces.value.find((entry) => entry.cwd === cwd);
  if (w === undefined) return null;
  return w.primary ? {} : { workspace: w.id };
}

/** A workspace's name: its display name, else its folder's. */
export const workspaceLabel = (w: Pick<WorkspaceEntry, "cwd" | "displayName">) => w.displayName || baseName(w.cwd);

/** A label as a reader compares it: compatibility forms folded, case ignored. */
const labelKey = (label: string) => label.normalize("NFKC").toLowerCase();

/** Keys of the labels two or more served workspaces share (a name or a folder name given twice). */
const sharedLabels = computed(() => {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const w of workspaces.value) {
    const key = labelKey(workspaceLabel(w));
    (seen.has(key) ? shared : seen).add(key);
  }
  return shared;
});

/** Whether another served workspace goes by the same label: then its path is what tells them apart. */
export const labelShared = (w: Pick<WorkspaceEntry, "cwd" | "displayName">) => sharedLabels.value.has(labelKey(workspaceLabel(w)));

/** Remembers `id` as this browser's workspace (null: the primary). */
export function chooseWorkspace(id: string | null): void {
  selectedId.value = id;
  if (id === null) localStorage.removeItem(SELECTED_WORKSPACE_KEY);
  else localStorage.setItem(SELECTED_WORKSPACE_KEY, id);
}

/**
 * Takes the daemon's list; returns true when the remembered workspace is not in it any more (the
 * choice is then forgotten: the primary is current).
 */
export function takeWorkspaces(list: WorkspaceEntry[]): boolean {
  workspaces.value = list;
  const gone = selectedId.value !== null && !list.some((w) => w.id === selectedId.value);
  if (gone) chooseWorkspace(null);
  return gone;
}
