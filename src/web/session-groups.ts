/**
 * The current workspace's session groups (`GET /workspace/:id/session-groups`, read by app-state.ts
 * with each refresh of its session list), and which group sections the reader collapsed (kept in this
 * browser). Group names are the daemon's untrusted text: the views show them through `Visible`.
 */
import { signal } from "@preact/signals";
import type { SessionGroup } from "../client/index.ts";

export interface WorkspaceGroups {
  /** The workspace (its folder) the groups are of. */
  workspace: string;
  /** By the daemon's order. */
  groups: SessionGroup[];
  /** The colors a group may take (the daemon's presets). */
  colors: string[];
}

/** The groups of the listed workspace; null before they are read, or when the daemon keeps none (no catalog). */
export const sessionGroups = signal<WorkspaceGroups | null>(null);

const COLLAPSED_KEY = "svc.collapsedGroups";
/** Most collapsed group ids remembered (the daemon's own bound on groups per workspace is larger than anyone collapses). */
const MAX_REMEMBERED = 200;

function readCollapsed(): Set<string> {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(COLLAPSED_KEY) ?? "[]");
    return new Set(Array.isArray(stored) ? stored.filter((id): id is string => typeof id === "string").slice(-MAX_REMEMBERED) : []);
  } catch {
    return new Set();
  }
}

/** Ids of the group sections shown collapsed. */
export const collapsedGroups = signal<ReadonlySet<string>>(readCollapsed());

export function toggleGroup(id: string): void {
  const next = new Set(collapsedGroups.value);
  if (!next.delete(id)) next.add(id);
  collapsedGroups.value = next;
  localStorage.setItem(COLLAPSED_KEY, JSON.stringify([...next].slice(-MAX_REMEMBERED)));
}

/**
 * The orders that move `groups[index]` one place `by` (-1 up, +1 down): it and its neighbour swap
 * orders (a tie is broken by one step, since the daemon orders ties by name). Empty at either end.
 */
export function moveOrders(groups: readonly SessionGroup[], index: number, by: -1 | 1): { id: string; order: number }[] {
  const moved = groups[index];
  const other = groups[index + by];
  if (moved === undefined || other === undefined) return [];
  if (moved.order === other.order) return [{ id: moved.id, order: other.order + by }];
  return [
    { id: moved.id, order: other.order },
    { id: other.id, order: moved.order },
  ];
}
