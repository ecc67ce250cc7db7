/**
 * What the built-in agent holds for its whole life and needs before any ACP SDK is loaded: its
 * configuration and workspace, the live sessions, the trust decision, the MCP budget notifier, and
 * the answers to `initialize` and `session/new`. Both the agent's front (`acp-front.ts`, which
 * answers those two itself while the SDK is not loaded) and the SDK app (`agent-app.ts`) work on
 * the one core, so a session the front opened is the app's too.
 *
 * Nothing here imports the ACP SDK, the AI SDK or the MCP SDK at runtime (type imports only).
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentConfig, McpServerConfig } from "../config/agent-config.ts";
import type { WorkspacePolicy } from "../config/workspace-policy.ts";
import { VERSION } from "../version.ts";
import { AgentSession } from "./agent-session.ts";
import { SESSION_MODES } from "./approval.ts";
import { BudgetNotifier, type NotifyTarget } from "./budget-notifier.ts";
import { AVAILABLE_COMMANDS } from "./commands.ts";
import type { ConversationStore } from "./conversation-store.ts";
import type { ShellRunner } from "./tools/shell-runner.ts";

/** Live sessions per agent process; `session/new` past it is refused (close one first). */
export const MAX_SESSIONS = 1000;

/** The ACP protocol version the agent speaks: the SDK's PROTOCOL_VERSION (a test holds them equal), here so answering `initialize` needs no SDK. */
export const ACP_PROTOCOL_VERSION = 1;

export interface AgentDeps {
  readonly config: AgentConfig;
  /** The workspace's real path. */
  readonly workspace: string;
  /** See `ToolContext.ripgrep`. */
  readonly ripgrep: string | null;
  /** See `ToolContext.protectedFolders`. */
  readonly protectedFolders: readonly string[];
  readonly store: ConversationStore;
  /** The host settings' MCP servers read again, for `svc/control/workspace/mcp/reload`. */
  readonly rereadMcpServers: () => McpServerConfig[];
  /** The workspace policy under a trust decision, from the settings as they are now (for a trust change). */
  readonly policyFor: (trusted: boolean) => WorkspacePolicy;
}

/** The `initialize` answer (the same whoever gives it). */
export const initializeResponse = (): acp.InitializeResponse => ({
  protocolVersion: ACP_PROTOCOL_VERSION,
  agentInfo: { name: "svc", title: "svc built-in agent", version: VERSION },
  authMethods: [],
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    sessionCapabilities: { close: {}, resume: {}, fork: {} },
  },
});

export class AgentCore {
  readonly sessions = new Map<string, AgentSession>();
  readonly notifier = new BudgetNotifier(() => [...this.sessions.keys()]);
  /** The trust decision now, and the mode new sessions start in under it. */
  readonly trust: { trusted: boolean; startMode: AgentConfig["approvalMode"] };
  /** What runs the shell commands: made with the SDK app (only a prompt runs one); the agent's exit kills what it started. */
  shell: ShellRunner | null = null;

  constructor(readonly deps: AgentDeps) {
    this.trust = { trusted: deps.config.trusted, startMode: deps.config.approvalMode };
  }

  get workspace(): string {
    return this.deps.workspace;
  }

  /** Whether another session may open (MAX_SESSIONS). */
  get canOpen(): boolean {
    return this.sessions.size < MAX_SESSIONS;
  }

  /** Opens a session under `id` working in `root` (the workspace, or one of its worktrees; the caller checked `canOpen`). */
  open(id: string, root = this.workspace): AgentSession {
    const { config, store } = this.deps;
    const session = new AgentSession(
      id,
      root,
      this.trust.startMode,
      config.defaultModelId,
      (line, history) => store.append(id, root, line, history),
      (history) => store.replace(id, root, history),
    );
    this.sessions.set(id, session);
    return session;
  }

  /** A session's modes and models, as `session/new`, load and resume report them. */
  state(session: AgentSession) {
    const { models } = this.deps.config;
    return {
      modes: { currentModeId: session.mode, availableModes: SESSION_MODES.map((m) => ({ ...m })) },
      ...(session.modelId === null ? {} : { models: { currentModelId: session.modelId, availableModels: models.map((m) => ({ modelId: m.id, name: m.model, description: `${m.model} (${m.providerId})` })) } }),
    };
  }

  /** A new session, with the `session/new` answer. */
  newSession(root = this.workspace): { sessionId: string } & ReturnType<AgentCore["state"]> {
    const session = this.open(crypto.randomUUID(), root);
    return { sessionId: session.id, ...this.state(session) };
  }

  /** Publishes the session's commands, and any MCP budget event no session was there to get, once the answer introducing the session is on the wire. */
  announce(client: NotifyTarget, sessionId: string): void {
    setImmediate(() => {
      void client.notify("session/update", { sessionId, update: { sessionUpdate: "available_commands_update", availableCommands: AVAILABLE_COMMANDS } }).catch(() => {});
      this.notifier.sessionOpened(client, sessionId);
    });
  }
}
