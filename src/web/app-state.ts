/**
 * The page's shared state: one SDK client on the page's own origin, the session list (with the
 * listed workspace's session groups, session-groups.ts), and the auth state. `guard` runs an API call and turns a bearer 401 into the token prompt, any other
 * failure into the `notice` banner.
 */
import { signal } from "@preact/signals";
import { createClient, DaemonApiError, type SessionListItem } from "../client/index.ts";
import { sessionGroups } from "./session-groups.ts";
import { rememberedTitle } from "./titles.ts";
import { adoptToken } from "./token.ts";
import { currentWorkspace, persistedIds, takeWorkspaces, workspaceLabel, workspaces } from "./workspaces.ts";

export const client = createClient({ baseUrl: location.origin, token: adoptToken() });

/** The daemon answered a plain 401: the token prompt shows until a token is entered. */
export const needsToken = signal(false);
/** Bumped after a token is entered: views refetch. */
export const reloadKey = signal(0);
/** The latest failure worth telling the user (role=alert). */
export const notice = signal<string | null>(null);

/** Bumped to open the selected session again (after it went offline). */
export const reopenKey = signal(0);

/** The daemon's primary workspace (`/capabilities`), once known; `workspaces.ts` has them all. */
export const workspaceCwd = signal<string | undefined>(undefined);
/** The daemon's folder trust decision for its primary workspace (`/capabilities`), once known. */
export const workspaceTrusted = signal<boolean | undefined>(undefined);
export const sessions = signal<SessionListItem[]>([]);
export const showArchived = signal(false);
/** The list shows the sessions of every served workspace, not only the current one's. */
export const allWorkspaces = signal(false);
export const sessionsLoaded = signal(false);
/** A "New session" is under way (the main pane says so). */
export const creating = signal(false);

export function describe(error: unknown): string {
  if (error instanceof DaemonApiError) return error.hint ? `${error.message} (${error.hint})` : error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `fn`; a bearer 401 opens the token prompt, another failure becomes the notice. Returns undefined on failure. */
export async function guard<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    report(error);
    return undefined;
  }
}

export function report(error: unknown): void {
  if (!reportAuth(error)) notice.value = describe(error);
}

/** Opens the token prompt for a bearer 401 (for views that show their other failures inline); true if it did. */
export function reportAuth(error: unknown): boolean {
  const auth = error instanceof DaemonApiError && error.status === 401 && error.code !== "token_required";
  if (auth) needsToken.value = true;
  return auth;
}

/** Where the page remembers the current workspace's folder, so the next load can list its sessions at once. */
const WORKSPACE_KEY = "svc.workspaceCwd";
let refreshing: Promise<void> | null = null;
let again: Promise<void> | null = null;

/**
 * Rows of the newest page of the current workspace's live and persisted sessions, in the organized
 * view (pinned ones first, with their pin), plus archived ones when asked; every workspace's in the
 * "All workspaces" view (`loadAll`). One refresh at a time: calls during a refresh share one more refresh after it.
 * The first one lists with the workspace remembered from an earlier load while `/capabilities` is
 * asked, and uses that list only if that is still the current workspace.
 */
export function refreshSessions(): Promise<void> {
  if (refreshing) {
    // Something changed during this refresh (an action, the archived filter, the workspace): one more follows it.
    again ??= refreshing.then(() => {
      again = null;
      return refreshSessions();
    });
    return again;
  }
  refreshing = loadSessions().finally(() => (refreshing = null));
  return refreshing;
}

async function loadSessions(): Promise<void> {
  if (workspaceCwd.value === undefined) {
    const remembered = localStorage.getItem(WORKSPACE_KEY) ?? undefined;
    const early = remembered === undefined ? undefined : client.listSessions({ workspace: remembered, organized: true }).catch(() => undefined);
    if (!(await refreshWorkspaces())) return;
    const list = remembered === currentWorkspace.value?.cwd ? await early : undefined;
    if (list) return show(list.sessions, remembered!);
  }
  if (allWorkspaces.value && workspaces.value.length > 1) return loadAll();
  const workspace = currentWorkspace.value?.cwd;
  if (workspace === undefined) return;
  localStorage.setItem(WORKSPACE_KEY, workspace);
  try {
    await show((await client.listSessions({ workspace, organized: true })).sessions, workspace);
  } catch (error) {
    // Removed meanwhile (by another client): the daemon's list again, which falls back to the primary.
    if (error instanceof DaemonApiError && error.code === "workspace_not_found" && !currentWorkspace.value?.primary) {
      if ((await refreshWorkspaces()) && currentWorkspace.value?.cwd !== workspace) return loadSessions();
    }
    report(error);
  }
}

/**
 * The "All workspaces" view: each served workspace's newest page (and archived page when asked),
 * merged: pinned first, then newest first. A workspace whose list fails is named in the notice; the others still show.
 */
async function loadAll(): Promise<void> {
  const served = workspaces.value;
  const ask = (archived: boolean) => Promise.allSettled(served.map((w) => client.listSessions({ workspace: w.cwd, archived, organized: true })));
  const [active, archived] = await Promise.all([ask(false), showArchived.value ? ask(true) : Promise.resolve([])]);
  if (!allWorkspaces.value) return;
  const rows: SessionListItem[] = [];
  const failed: string[] = [];
  served.forEach((w, i) => {
    for (const [pages, isArchived] of [[active, false], [archived, true]] as const) {
      const page = pages[i];
      if (page?.status === "fulfilled") rows.push(...page.value.sessions.map((s) => ({ workspaceCwd: w.cwd, ...s, ...(isArchived ? { isArchived } : {}) })));
      else if (page?.status === "rejected" && !reportAuth(page.reason) && !failed.includes(workspaceLabel(w))) failed.push(workspaceLabel(w));
    }
  });
  const at = (s: SessionListItem) => Date.parse(s.updatedAt ?? s.createdAt ?? "") || 0;
  sessions.value = rows.sort((a, b) => Number(b.isPinned === true) - Number(a.isPinned === true) || at(b) - at(a));
  sessionsLoaded.value = true;
  if (failed.length > 0) notice.value = `The sessions of ${failed.join(", ")} could not be listed.`;
}

/**
 * Asks `/capabilities` for the daemon's workspaces (and which registrations persist); false when it
 * did not answer. A remembered workspace the daemon no longer serves gives way to the primary.
 */
export async function refreshWorkspaces(): Promise<boolean> {
  const caps = await guard(() => client.capabilities());
  if (!caps?.workspaceCwd) return false;
  workspaceCwd.value = caps.workspaceCwd;
  const list = caps.workspaces ?? [];
  workspaceTrusted.value = list.find((w) => w.primary)?.trusted;
  if (takeWorkspaces(list)) notice.value = `The workspace this browser used last is no longer served; back to ${workspaceLabel(currentWorkspace.value ?? { cwd: caps.workspaceCwd })}.`;
  // Which registrations persist: a detail; a daemon without a store (501) or a locked one leaves it out.
  if (list.length > 1)
    void client.workspaceRegistrations().then(
      (r) => (persistedIds.value = new Set(r.entries.map((e) => e.id))),
      () => undefined,
    );
  return true;
}

async function show(active: SessionListItem[], workspace: string): Promise<void> {
  const [archived, groups] = await Promise.all([
    showArchived.value ? guard(() => client.listSessions({ workspace, archived: true, organized: true })) : undefined,
    readGroups(workspace),
  ]);
  // The workspace changed while this list was asked for: the next refresh lists the new one.
  if (workspace !== currentWorkspace.value?.cwd) return;
  if (groups !== undefined) sessionGroups.value = groups;
  sessions.value = [...active, ...(archived?.sessions ?? []).map((s) => ({ ...s, isArchived: true }))];
  sessionsLoaded.value = true;
}

/**
 * `workspace`'s session groups; null when the daemon keeps none (no catalog: 503, 501). Another
 * failure is reported and gives undefined (the groups shown so far stay).
 */
async function readGroups(workspace: string) {
  try {
    const { groups, colorOptions } = await client.sessionGroups({ workspace });
    return { workspace, groups, colors: colorOptions };
  } catch (error) {
    if (error instanceof DaemonApiError && (error.status === 503 || error.status === 501)) return null;
    report(error);
    return undefined;
  }
}

/** A session's name: the daemon's, else its first prompt (titles.ts), else its id's head. */
export const displayName = (s: { sessionId: string; displayName?: string | undefined }) => s.displayName || rememberedTitle(s.sessionId) || `Session ${s.sessionId.slice(0, 8)}`;

/** The page has a bearer token: routes that need the daemon to have one can work. */
export const hasToken = () => Boolean(client.token);
