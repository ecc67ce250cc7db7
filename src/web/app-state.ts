/**
 * The page's shared state: one SDK client on the page's own origin, the session list, and the
 * auth state. `guard` runs an API call and turns a bearer 401 into the token prompt, any other
 * failure into the `notice` banner.
 */
import { signal } from "@preact/signals";
import { createClient, DaemonApiError, type SessionListItem } from "../client/index.ts";
import { adoptToken } from "./token.ts";

export const client = createClient({ baseUrl: location.origin, token: adoptToken() });

/** The daemon answered a plain 401: the token prompt shows until a token is entered. */
export const needsToken = signal(false);
/** Bumped after a token is entered: views refetch. */
export const reloadKey = signal(0);
/** The latest failure worth telling the user (role=alert). */
export const notice = signal<string | null>(null);

/** Bumped to open the selected session again (after it went offline). */
export const reopenKey = signal(0);

export const workspaceCwd = signal<string | undefined>(undefined);
export const sessions = signal<SessionListItem[]>([]);
export const showArchived = signal(false);
export const sessionsLoaded = signal(false);

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

/** Rows of the newest page of live and persisted sessions (plus archived ones when asked). */
export async function refreshSessions(): Promise<void> {
  const caps = await guard(() => client.capabilities());
  if (!caps) return;
  workspaceCwd.value = caps.workspaceCwd;
  const active = await guard(() => client.listSessions());
  if (!active) return;
  const archived = showArchived.value ? await guard(() => client.listSessions({ archived: true })) : undefined;
  sessions.value = [...active.sessions, ...(archived?.sessions ?? []).map((s) => ({ ...s, isArchived: true }))];
  sessionsLoaded.value = true;
}

export const displayName = (s: { sessionId: string; displayName?: string | undefined }) => s.displayName || `Session ${s.sessionId.slice(0, 8)}`;
