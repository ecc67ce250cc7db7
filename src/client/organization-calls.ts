/**
 * The client's session organization, recap, generation and turn-index calls (spread into
 * `createClient`'s client): groups of a workspace (its id or absolute path; the daemon's own by
 * default), a session's pin, group, color and sort order, its recap and generated texts (which
 * never enter its conversation), its automatic title switch, and its turn index.
 */
import { errorFromResponse } from "./errors.ts";
import { SseParser } from "./sse-parser.ts";

type Call = <T>(path: string, o?: { method?: string; body?: unknown; query?: Record<string, string | number | boolean | undefined>; session?: string }) => Promise<T>;
type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

const enc = encodeURIComponent;

export interface SessionGroup {
  id: string;
  name: string;
  color: string;
  order: number;
  createdAt: string;
  updatedAt: string;
}

export interface SessionGroups {
  groups: SessionGroup[];
  colorOptions: string[];
}

export interface SessionOrganization {
  sessionId: string;
  groupId: string | null;
  color: string | null;
  isPinned: boolean;
  pinnedAt?: string;
  sortOrder: number | null;
  updatedAt: string;
}

export interface OrganizationChange {
  isPinned?: boolean;
  groupId?: string | null;
  color?: string | null;
  sortOrder?: number | null;
}

/** Where a recap or generated text came from: the session's model, or the daemon's journal. */
export type TextSource = "model" | "local";

export interface SessionRecap {
  sessionId: string;
  recap: string | null;
  source: TextSource;
  model?: string;
  reason?: "agent_cannot" | "not_live" | "model_failed" | "model_empty";
}

export interface GeneratedText {
  text: string;
  model: string;
  modelSource: "main" | "fast" | "local";
  inputTokens?: number;
  outputTokens?: number;
}

export interface TurnIndexEntry {
  ordinal: number;
  turnId: string;
  kind: "prompt";
  promptId: string;
  timestamp?: string;
  label: string;
  detail?: string;
}

export interface TurnIndexPage {
  v: 1;
  sessionId: string;
  snapshot: string;
  totalTurns: number;
  start: number;
  turns: TurnIndexEntry[];
  startTime: string;
  lastUpdated: string;
}

export function organizationCalls(
  call: Call,
  defaultWorkspace: () => Promise<string>,
  doFetch: Fetch,
  url: (path: string) => string,
  headers: (session?: string, extra?: Record<string, string>) => Record<string, string>,
) {
  const groups = async (workspace: string | undefined) => `/workspace/${enc(workspace ?? (await defaultWorkspace()))}/session-groups`;
  return {
    /** A workspace's session groups, by order. */
    sessionGroups: async (o: { workspace?: string } = {}) => call<SessionGroups>(await groups(o.workspace)),
    createSessionGroup: async (name: string, color: string, o: { workspace?: string } = {}) =>
      (await call<{ group: SessionGroup }>(await groups(o.workspace), { method: "POST", body: { name, color } })).group,
    /** Renames, recolors or reorders a group. */
    updateSessionGroup: async (groupId: string, change: { name?: string; color?: string; order?: number }, o: { workspace?: string } = {}) =>
      (await call<{ group: SessionGroup }>(`${await groups(o.workspace)}/${enc(groupId)}`, { method: "PATCH", body: change })).group,
    /** Deletes a group (its sessions become ungrouped); false when there was none. */
    deleteSessionGroup: async (groupId: string, o: { workspace?: string } = {}) =>
      (await call<{ deleted: boolean }>(`${await groups(o.workspace)}/${enc(groupId)}`, { method: "DELETE" })).deleted,
    /** Pins, groups, colors or orders a session; with `workspace`, 404 unless the session is that workspace's. */
    organizeSession: (id: string, change: OrganizationChange, o: { workspace?: string } = {}) =>
      call<SessionOrganization>(o.workspace === undefined ? `/session/${enc(id)}/organization` : `/workspaces/${enc(o.workspace)}/session/${enc(id)}/organization`, {
        method: "PATCH",
        body: change,
      }),
    /** Turns the session's automatic title off (or back on). */
    setAutoTitle: (id: string, enabled: boolean) => call<{ sessionId: string }>(`/session/${enc(id)}/metadata`, { method: "PATCH", body: { autoTitle: enabled }, session: id }),
    /** A recap of the session so far (not added to its conversation). */
    recapSession: (id: string) => call<SessionRecap>(`/session/${enc(id)}/recap`, { method: "POST", body: {}, session: id }),
    /**
     * Generates text outside the session's conversation: a free `prompt` (built-in agent only, else
     * 501) or a `kind` about the session. Reads the whole stream; its `error` frame throws.
     */
    generate: async (id: string, request: { prompt: string } | { kind: "title" | "recap" }, o: { signal?: AbortSignal } = {}): Promise<GeneratedText> => {
      const res = await doFetch(url(`/session/${enc(id)}/generate`), {
        method: "POST",
        headers: headers(id, { "content-type": "application/json", accept: "text/event-stream" }),
        body: JSON.stringify(request),
        signal: o.signal,
      });
      if (!res.ok) throw await errorFromResponse(res);
      const frames = new SseParser().push(`${await res.text()}\n\n`);
      let text = "";
      for (const frame of frames) {
        const data = JSON.parse(frame.data) as Record<string, unknown>;
        if (frame.event === "delta" && typeof data.text === "string") text += data.text;
        else if (frame.event === "error") throw new Error(`generation failed: ${String(data.message ?? data.code)}`);
        else if (frame.event === "done") {
          const { model, modelSource, inputTokens, outputTokens } = data as Omit<GeneratedText, "text">;
          return { text, model, modelSource, ...(inputTokens === undefined ? {} : { inputTokens }), ...(outputTokens === undefined ? {} : { outputTokens }) };
        }
      }
      throw new Error("generation stream ended without a terminal event");
    },
    /** The session's turns (the newest `limit` by default; `snapshot` and `start` page one stable index). */
    turnIndex: (id: string, o: { limit?: number; start?: number; snapshot?: string; workspace?: string } = {}) =>
      call<TurnIndexPage>(o.workspace === undefined ? `/session/${enc(id)}/turn-index` : `/workspaces/${enc(o.workspace)}/session/${enc(id)}/turn-index`, {
        query: { limit: o.limit, start: o.start, snapshot: o.snapshot },
      }),
  };
}
