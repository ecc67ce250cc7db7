/**
 * `createClient`: typed REST calls on one daemon. No DOM dependency: it needs only `fetch`,
 * `URL` and `AbortController`, so it runs in browsers, Bun and Node 22+.
 *
 * Client identity: the daemon mints a client id per session on create and load; the client keeps
 * the newest one per session and presents it (`X-Svc-Client-Id`) on later calls on that session,
 * so prompts, votes and streams are attributed to it.
 */
import type { AuthStatus, DeviceFlow, ProviderCatalog, ProviderSetup, ProviderStored } from "./auth-types.ts";
import { errorFromResponse } from "./errors.ts";
import { subscribe, type Subscription, type SubscribeOptions } from "./subscription.ts";
import { organizationCalls } from "./organization-calls.ts";
import { rewindCalls } from "./rewind-calls.ts";
import { sideQuestionCalls } from "./side-question-calls.ts";
import { branchCalls } from "./branch-calls.ts";
import { channelCalls } from "./channel-calls.ts";
import { workspaceCalls } from "./workspace-calls.ts";
import { settingsCalls } from "./settings-calls.ts";
import type {
  ApprovalMode,
  ApprovalModeResult,
  BulkOutcome,
  Capabilities,
  CreatedSession,
  CreateSessionRequest,
  WorktreeResetAnswer,
  WorktreeResetRequest,
  DirectoryListing,
  FileText,
  Health,
  ListSessionsOptions,
  WorkspaceOption,
  LoadedSession,
  PendingPrompt,
  PermissionOutcome,
  PromptAdmission,
  PromptBlock,
  SessionContext,
  SessionListPage,
  SessionMetadata,
  TranscriptPage,
  TrustChangeAnswer,
  TrustState,
  WorkspaceSection,
  WorkspaceStatus,
  WorkspaceTrust,
} from "./types.ts";

export interface ClientOptions {
  /** The daemon's base address, e.g. `http://127.0.0.1:4170` (a browser page may pass its own origin). */
  baseUrl: string;
  /** Bearer token, when the daemon has one; `setToken` changes it later. */
  token?: string;
  /** A client id to ask for on create and load (the daemon mints one otherwise). */
  clientId?: string;
  /** The fetch to use (tests, proxies); defaults to the global one. */
  fetch?: FetchLike;
}

/** The part of `fetch` the client uses. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

type Query = Record<string, string | number | boolean | undefined>;

interface CallOptions {
  method?: string;
  query?: Query;
  body?: unknown;
  /** The session whose client id the call presents. */
  session?: string;
  /** Present `options.clientId` (calls outside a session that tell callers apart: device flows). */
  asClient?: boolean;
  signal?: AbortSignal;
}

export type DaemonClient = ReturnType<typeof createClient>;

const enc = encodeURIComponent;

export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  let token = options.token;
  /** The client id the daemon gave this client per session (bounded by the sessions it touched). */
  const clientIds = new Map<string, string>();
  let workspaceCwd: string | undefined;

  function headers(session?: string, extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { accept: "application/json", ...extra };
    if (token) h.authorization = `Bearer ${token}`;
    const clientId = session === undefined ? undefined : clientIds.get(session);
    if (clientId) h["x-svc-client-id"] = clientId;
    return h;
  }

  function url(path: string, query?: Query): string {
    const u = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  async function call<T>(path: string, o: CallOptions = {}): Promise<T> {
    const extra: Record<string, string> = o.body === undefined ? {} : { "content-type": "application/json" };
    if (o.asClient && options.clientId) extra["x-svc-client-id"] = options.clientId;
    const res = await doFetch(url(path, o.query), {
      method: o.method ?? "GET",
      headers: headers(o.session, extra),
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: o.signal,
    });
    if (!res.ok) throw await errorFromResponse(res);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  /**
   * A call that registers a client on a session (create, load, resume): it asks for
   * `options.clientId` when the caller chose one and remembers the id the daemon answers with.
   */
  async function enter<T extends { sessionId: string; clientId: string }>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const h = headers(undefined, { "content-type": "application/json" });
    if (options.clientId) h["x-svc-client-id"] = options.clientId;
    const res = await doFetch(url(path), { method: "POST", headers: h, body: JSON.stringify(body), signal });
    if (!res.ok) throw await errorFromResponse(res);
    const reply = (await res.json()) as T;
    clientIds.set(reply.sessionId, reply.clientId);
    return reply;
  }

  /** A workspace route's path: its legacy form on the primary workspace, or its qualified form on the one named. */
  const scoped = (o: WorkspaceOption, legacy: string, rest: string) => (o.workspace === undefined ? legacy : `/workspaces/${enc(o.workspace)}${rest}`);

  async function defaultWorkspace(): Promise<string> {
    if (workspaceCwd === undefined) {
      const caps = await call<Capabilities>("/capabilities");
      if (!caps.workspaceCwd) throw new Error("the daemon does not report its workspace; pass `workspace`");
      workspaceCwd = caps.workspaceCwd;
    }
    return workspaceCwd;
  }

  const client = {
    baseUrl,
    get token() {
      return token;
    },
    setToken(next: string | undefined) {
      token = next;
    },
    /** The client id this client presents on `sessionId`, if the daemon gave it one. */
    clientIdFor: (sessionId: string) => clientIds.get(sessionId),
    /** The request headers a call on `sessionId` carries (bearer and client id); used by `subscribe`. */
    headersFor: (sessionId?: string) => headers(sessionId),
    fetch: doFetch,
    url,

    health: (deep = false) => call<Health>("/health", { query: deep ? { deep: 1 } : {} }),
    capabilities: async () => {
      const caps = await call<Capabilities>("/capabilities");
      if (caps.workspaceCwd) workspaceCwd = caps.workspaceCwd;
      return caps;
    },

    /** One page of the workspace's sessions, live and persisted, newest first. */
    listSessions: async (o: ListSessionsOptions = {}) => {
      const ws = o.workspace ?? (await defaultWorkspace());
      return call<SessionListPage>(`/workspace/${enc(ws)}/sessions`, {
        query: { archiveState: o.archived ? "archived" : "active", size: o.size, cursor: o.cursor, view: o.organized ? "organized" : undefined, group: o.group },
      });
    },
    createSession: (body: CreateSessionRequest = {}) => enter<CreatedSession>("/session", body),
    closeSession: (id: string) => call<void>(`/session/${enc(id)}`, { method: "DELETE", session: id }),
    archiveSessions: (sessionIds: string[]) => call<BulkOutcome>("/sessions/archive", { method: "POST", body: { sessionIds } }),
    unarchiveSessions: (sessionIds: string[]) => call<BulkOutcome>("/sessions/unarchive", { method: "POST", body: { sessionIds } }),
    renameSession: (id: string, displayName: string) =>
      call<SessionMetadata>(`/session/${enc(id)}/metadata`, { method: "PATCH", body: { displayName }, session: id }),
    /** Restores a persisted session (or attaches to a live one) with a bounded replay of its journal. */
    loadSession: (id: string, o: { signal?: AbortSignal } = {}) => enter<LoadedSession>(`/session/${enc(id)}/load`, {}, o.signal),
    resumeSession: (id: string) => enter<LoadedSession>(`/session/${enc(id)}/resume`, {}),
    /**
     * Replaces a worktree session by a fresh session in the same checkout (the work stays; the old
     * session is closed and can no longer be loaded); this client joins the replacement.
     */
    worktreeReset: (id: string, body: WorktreeResetRequest = {}) => enter<WorktreeResetAnswer>(`/session/${enc(id)}/worktree-reset`, body),
    sessionContext: (id: string) => call<SessionContext>(`/session/${enc(id)}/context`),
    /** A session's transcript; with `workspace`, 404 unless the session is that workspace's. */
    transcript: (id: string, o: { limit?: number; cursor?: string } & WorkspaceOption = {}) =>
      call<TranscriptPage>(scoped(o, `/session/${enc(id)}/transcript`, `/session/${enc(id)}/transcript`), { query: { limit: o.limit, cursor: o.cursor } }),

    /** Queues a prompt (text or content blocks); resolves on admission, not completion. */
    prompt: (id: string, prompt: string | PromptBlock[]) =>
      call<PromptAdmission>(`/session/${enc(id)}/prompt`, {
        method: "POST",
        body: { prompt: typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt },
        session: id,
      }),
    cancel: (id: string) => call<unknown>(`/session/${enc(id)}/cancel`, { method: "POST", body: {}, session: id }),
    pendingPrompts: (id: string) => call<{ pendingPrompts: PendingPrompt[] }>(`/session/${enc(id)}/pending-prompts`, { session: id }),
    vote: (id: string, requestId: string, outcome: PermissionOutcome) =>
      call<Record<string, never>>(`/session/${enc(id)}/permission/${enc(requestId)}`, { method: "POST", body: { outcome }, session: id }),
    setModel: (id: string, modelId: string) =>
      call<{ sessionId: string; modelId: string }>(`/session/${enc(id)}/model`, { method: "POST", body: { modelId }, session: id }),
    setApprovalMode: (id: string, mode: ApprovalMode, persist = false) =>
      call<ApprovalModeResult>(`/session/${enc(id)}/approval-mode`, { method: "POST", body: { mode, persist }, session: id }),

    listDirectory: (path = ".", includeIgnored = false, o: WorkspaceOption = {}) =>
      call<DirectoryListing>(scoped(o, "/list", "/list"), { query: { path, includeIgnored: includeIgnored ? "1" : undefined } }),
    readFile: (path: string, o: { maxBytes?: number } & WorkspaceOption = {}) => call<FileText>(scoped(o, "/file", "/file"), { query: { path, maxBytes: o.maxBytes } }),

    /** A workspace status route: preflight, env, mcp, tools, skills or providers. */
    workspaceStatus: (section: WorkspaceSection, o: WorkspaceOption = {}) => call<WorkspaceStatus>(scoped(o, `/workspace/${section}`, `/${section}`)),
    /** The bound workspace's folder trust (404 from a daemon without folder trust routes). */
    workspaceTrust: () => call<WorkspaceTrust>("/workspace/trust"),
    /** Asks the daemon to trust (or stop trusting) its workspace; needs the daemon's bearer token. */
    requestWorkspaceTrust: (desiredState: TrustState) => call<TrustChangeAnswer>("/workspace/trust/request", { method: "POST", body: { desiredState } }),
    ...workspaceCalls(call),
    ...organizationCalls(call, defaultWorkspace, doFetch, url, headers),
    ...channelCalls(call, doFetch, url),
    ...rewindCalls(call),
    ...sideQuestionCalls(call),
    ...branchCalls(call),
    ...settingsCalls(call),

    /** What model providers are configured and from where (no secret), and the pending sign-ins. */
    authStatus: () => call<AuthStatus>("/workspace/auth/status"),
    /** The providers that can be set up, and the device-flow sign-ins. */
    authProviders: () => call<ProviderCatalog>("/workspace/auth/providers"),
    /** Stores a model provider and its key (never returned); needs the token. */
    setProvider: (setup: ProviderSetup) => call<ProviderStored>("/workspace/auth/provider", { method: "POST", body: setup }),
    /** Removes a stored provider and its key or tokens; needs the token. */
    removeProvider: (providerId: string) => call<void>(`/workspace/auth/provider/${enc(providerId)}`, { method: "DELETE" }),
    /** Starts a device-flow sign-in (or attaches to the provider's pending one); show its `userCode` at `verificationUri`. */
    startDeviceFlow: (providerId: string) => call<DeviceFlow>("/workspace/auth/device-flow", { method: "POST", body: { providerId }, asClient: true }),
    deviceFlow: (deviceFlowId: string) => call<DeviceFlow>(`/workspace/auth/device-flow/${enc(deviceFlowId)}`, { asClient: true }),
    cancelDeviceFlow: (deviceFlowId: string) => call<void>(`/workspace/auth/device-flow/${enc(deviceFlowId)}`, { method: "DELETE" }),

    /** Streams a session's events with resume, reconnect and resync (see subscription.ts). */
    subscribe(sessionId: string, o: SubscribeOptions): Subscription {
      return subscribe(client, sessionId, o);
    },
  };
  return client;
}
