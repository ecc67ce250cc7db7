/**
 * The built-in agent's ACP surface on the SDK's agent app, over the agent's core (`agent-core.ts`),
 * loaded when the front hands it the connection (`acp-front.ts`): initialize, session/new (many sessions
 * per process), session/load (the saved conversation replayed as updates) and session/resume, session/fork (`fork.ts`),
 * session/prompt (built-in tools and the MCP servers' tools), session/cancel, session/set_mode,
 * session/set_model and session/close. Everything not registered is answered `-32601` by the SDK.
 * Hooks (`hooks/`) run around prompts and tool calls, and at a session's close.
 *
 * Trust: whether the workspace is trusted comes from the start (`AgentConfig.trusted`) and may be
 * changed by `svc/control/workspace/trust` (the daemon's decision). Untrusted, a session can only be
 * in `plan` or `default`; revoking trust switches every session in a wider mode to `default` at
 * once, forgets every session's "always" answers and adds the untrusted policy's disabled tools;
 * granting it lets sessions be switched to wider modes and applies the trusted policy's start mode
 * and disabled tools (live sessions keep their mode).
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { APPROVAL_MODES, type ApprovalMode } from "../config/agent-config.ts";
import { UNTRUSTED_MODES } from "../config/approval-modes.ts";
import { WorkspaceFiles } from "../workspace/workspace-files.ts";
import { foldersInside } from "../workspace/protected-target.ts";
import { sessionRoot } from "../workspace/worktree/worktree-root.ts";
import { initializeResponse, MAX_SESSIONS, type AgentCore } from "./agent-core.ts";
import type { AgentSession } from "./agent-session.ts";
import { replayUpdates } from "./replay.ts";
import { registerStatusMethods } from "./status-methods.ts";
import { registerControlMethods } from "./control-methods.ts";
import { registerGenerationMethods } from "./generation-methods.ts";
import { registerAgentGenerateMethod, subagentHost } from "./subagents/index.ts";
import { McpServers } from "./mcp/mcp-servers.ts";
import { RuntimeMcpServers } from "./mcp/runtime-servers.ts";
import { toolSet } from "./mcp/mcp-tools.ts";
import { modelClientFor, type ModelClient } from "./model/provider.ts";
import { registerHookMethods } from "./hooks/hook-methods.ts";
import { Hooks } from "./hooks/hooks.ts";
import { TurnHooks } from "./hooks/turn-hooks.ts";
import { ShellRunner } from "./tools/shell-runner.ts";
import { registerLanguageMethods } from "./language-methods.ts";
import { PromptContextReader } from "./prompt-context.ts";
import { Skills, skillTool, SKILL_TOOL_NAME } from "./skills/index.ts";
import { extensionSkillSources } from "./skills/extension-sources.ts";
import { invocationPromptId, registerRewindMethod } from "./rewind.ts";
import { forkCut, forkInto } from "./fork.ts";
import { runTurn } from "./turn.ts";

/** `session/set_model` has no schema in the SDK: `{sessionId, modelId}`, both strings. */
const setModelParams: acp.ParamsParser<{ sessionId: string; modelId: string }> = (params) => {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.sessionId !== "string" || typeof p.modelId !== "string") throw acp.RequestError.invalidParams(undefined, "sessionId and modelId must be strings");
  return { sessionId: p.sessionId, modelId: p.modelId };
};

/** What a trust change did: the sessions switched to `default` (revocation only), each with the mode it had. */
export interface TrustChangeResult {
  trusted: boolean;
  approvalMode: ApprovalMode;
  narrowed: { sessionId: string; previous: ApprovalMode }[];
}

export function buildAgentApp(core: AgentCore): acp.AgentApp {
  const { config, ripgrep, protectedFolders, store, rereadMcpServers, policyFor } = core.deps;
  // The agent's own edits are not refused in an untrusted workspace: there its approval mode is
  // `plan` or `default`, so each one is refused or asks first.
  const files = new WorkspaceFiles(core.workspace, () => true);
  const shell = (core.shell = new ShellRunner(core.workspace, config.shellEnv));
  const { sessions, notifier, trust } = core;
  // The workspace's hooks run only while it is trusted: asked at each event.
  const hooks = new Hooks(config.hooks, () => trust.trusted, shell, core.workspace, (sessionId) => sessions.get(sessionId)?.cwd ?? core.workspace);
  const turnHooks = new TurnHooks(hooks);
  // The user's MCP servers and the enabled extensions' (read again at each reload).
  const mcp = new McpServers(config.mcpServers, config.shellEnv, config.mcpBudget, (event) => notifier.publish(event));
  const settingsMcpServers = rereadMcpServers;
  // Servers a client added to this running agent stand over the declared ones (kept by every reload).
  const runtimeMcpServers = new RuntimeMcpServers();
  const declaredMcpServers = () => runtimeMcpServers.over(settingsMcpServers());
  const skills = new Skills({ workspace: files.root, dataDir: config.dataDir, trusted: () => trust.trusted, extensions: () => extensionSkillSources(config.dataDir) });
  const loadSkill = skillTool(() => skills.catalog());
  const promptContext = new PromptContextReader({ workspace: files.root, dataDir: config.dataDir, trusted: () => trust.trusted, shellEnv: config.shellEnv, skills });
  /** Tools not offered to the model: from the settings at start, then as `svc/control/workspace/tools/enable` and trust changes say. */
  const disabledTools = new Set(config.disabledTools);
  const checkRoom = () => {
    if (!core.canOpen) throw acp.RequestError.invalidRequest(undefined, `at most ${MAX_SESSIONS} sessions per agent; close one first`);
  };
  const open = (id: string, root: string) => {
    checkRoom();
    return core.open(id, root);
  };
  /**
   * The root a session asked for in `cwd` works in: the workspace, or one of its session worktrees
   * (`workspace/worktree/worktree-root.ts`, the daemon's `POST /session` with `worktree`); anything
   * else is refused, so no session reaches outside the workspace.
   */
  const rootOf = (cwd: string) => {
    const root = sessionRoot(files.root, cwd);
    if (root === null) throw acp.RequestError.invalidParams({ cwd }, `this agent serves the workspace ${files.root} (or one of its worktrees) only`);
    return root;
  };
  /** Each worktree's file access, shell and protected folders, rooted at its checkout (made on first use). */
  const worktreeTools = new Map<string, { files: WorkspaceFiles; shell: ShellRunner; ripgrep: string | null; protectedFolders: readonly string[] }>();
  const toolsOf = (root: string) => {
    if (root === files.root) return { files, shell, ripgrep, protectedFolders };
    let tools = worktreeTools.get(root);
    if (!tools) {
      tools = { files: new WorkspaceFiles(root, () => true), shell: shell.in(root), ripgrep, protectedFolders: foldersInside(root, [config.dataDir]) };
      worktreeTools.set(root, tools);
    }
    return tools;
  };
  /** A live session, or one taken back from its saved conversation (`-32002` when there is none for this workspace). */
  const restore = (sessionId: string, cwd: string) => {
    const root = rootOf(cwd);
    const live = sessions.get(sessionId);
    if (live) {
      if (live.cwd !== root) throw acp.RequestError.invalidParams({ cwd }, "the session works in another directory");
      return live;
    }
    const stored = store.load(sessionId);
    if (!stored || stored.cwd !== root) throw acp.RequestError.resourceNotFound(`session:${sessionId}`);
    const session = open(sessionId, root);
    session.restore(stored.messages);
    return session;
  };
  const models = new Map<string, Promise<ModelClient>>();
  const modelFor = (id: string) => {
    let model = models.get(id);
    if (!model) {
      model = modelClientFor(config.models.find((m) => m.id === id)!);
      models.set(id, model);
    }
    return model;
  };
  const subagents = subagentHost({ config, workspace: files.root, trusted: () => trust.trusted, modelFor });
  const sessionOf = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw acp.RequestError.resourceNotFound(`session:${sessionId}`);
    return session;
  };
  const state = (session: AgentSession) => core.state(session);

  /** Switches a session's approval mode (an untrusted workspace stays in `default` or `plan`) and announces it. */
  const setMode = (client: acp.AgentContext, session: AgentSession, modeId: string) => {
    if (!APPROVAL_MODES.includes(modeId as ApprovalMode)) throw acp.RequestError.invalidParams({ modeId }, `unknown mode; one of ${APPROVAL_MODES.join(", ")}`);
    if (!trust.trusted && !UNTRUSTED_MODES.includes(modeId as ApprovalMode)) throw acp.RequestError.invalidParams({ modeId }, "the workspace is not trusted: only default and plan modes are allowed");
    const previous = session.mode;
    session.mode = modeId as ApprovalMode;
    setImmediate(() => void client.notify("session/update", { sessionId: session.id, update: { sessionUpdate: "current_mode_update", currentModeId: session.mode } }).catch(() => {}));
    return previous;
  };

  /** Applies the daemon's trust decision (see the header). */
  const setTrust = (client: acp.AgentContext, trusted: boolean): TrustChangeResult => {
    const policy = policyFor(trusted);
    trust.trusted = trusted;
    trust.startMode = policy.approvalMode;
    const narrowed: TrustChangeResult["narrowed"] = [];
    if (trusted) disabledTools.clear();
    for (const name of policy.disabledTools) disabledTools.add(name);
    if (!trusted)
      for (const session of sessions.values()) {
        // An untrusted folder asks before every change: "always" answers given under trust go too.
        session.alwaysAllowed.clear();
        if (UNTRUSTED_MODES.includes(session.mode)) continue;
        narrowed.push({ sessionId: session.id, previous: setMode(client, session, "default") });
      }
    // The workspace's own MCP servers, and those added at runtime, run only while it is trusted:
    // the servers are read again under the new decision (a revocation stops them before the next
    // turn; before discovery, the first pass reads the new list).
    if (!trusted) runtimeMcpServers.clear();
    mcp.reload(declaredMcpServers());
    return { trusted, approvalMode: trust.startMode, narrowed };
  };

  const app = acp
    .agent({ name: "svc" })
    .onRequest(acp.methods.agent.initialize, () => initializeResponse())
    .onRequest(acp.methods.agent.session.new, ({ params, client }) => {
      const root = rootOf(params.cwd);
      checkRoom();
      const answer = core.newSession(root);
      core.announce(client, answer.sessionId);
      return answer;
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      const session = restore(params.sessionId, params.cwd);
      for (const update of replayUpdates(session.history)) await client.notify("session/update", { sessionId: session.id, update });
      core.announce(client, session.id);
      return state(session);
    })
    .onRequest(acp.methods.agent.session.resume, ({ params, client }) => {
      const session = restore(params.sessionId, params.cwd);
      core.announce(client, session.id);
      return state(session);
    })
    .onRequest(acp.methods.agent.session.fork, ({ params, client }) => {
      const root = rootOf(params.cwd);
      const source = sessionOf(params.sessionId);
      checkRoom();
      const answer = core.newSession(root);
      try {
        forkInto(source, sessions.get(answer.sessionId)!, forkCut(params._meta));
      } catch (err) {
        sessions.delete(answer.sessionId);
        throw err;
      }
      core.announce(client, answer.sessionId);
      return { ...answer, ...state(sessions.get(answer.sessionId)!) };
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params, client }) => {
      setMode(client, sessionOf(params.sessionId), params.modeId);
      return {};
    })
    .onRequest("session/set_model", setModelParams, ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!config.models.some((m) => m.id === params.modelId)) throw acp.RequestError.invalidParams({ modelId: params.modelId }, `unknown model; one of ${config.models.map((m) => m.id).join(", ") || "(none configured)"}`);
      session.modelId = params.modelId;
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessionOf(params.sessionId);
      if (session.turn) throw acp.RequestError.invalidRequest(undefined, "a prompt is already running in this session");
      if (session.modelId === null) throw new acp.RequestError(-32603, "Internal error", { details: config.missingModelHint, errorKind: "auth_env_error" });
      const turn = new AbortController();
      session.turn = turn;
      try {
        // The first prompt waits for MCP discovery (started here unless the daemon started it).
        await mcp.discover();
        // The skill tool is offered when the turn's system prompt lists a skill (and it is not disabled).
        const toolbox = () => {
          const set = toolSet(mcp, disabledTools);
          if (!session.lastContext?.skills.length || disabledTools.has(SKILL_TOOL_NAME)) return set;
          return { ...set, enabled: new Map([...set.enabled, [SKILL_TOOL_NAME, loadSkill]]) };
        };
        const entry = config.models.find((m) => m.id === session.modelId)!;
        return await runTurn(
          { client, session, model: await modelFor(entry.id), modelId: entry.id, streamIdleTimeoutMs: config.streamIdleTimeoutMs, maxOutputTokens: entry.maxOutputTokens, contextLimit: entry.contextLimit, promptContext: () => promptContext.read(session.outputLanguage), tools: toolsOf(session.cwd), toolbox, signal: turn.signal, hooks: turnHooks, subagents, promptId: invocationPromptId(params._meta) },
          params.prompt,
        );
      } finally {
        session.turn = null;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const session = sessions.get(params.sessionId);
      session?.cancel();
      // Answered once its SessionEnd hooks ended (run where the session worked): the daemon may stop the agent right after.
      if (session) await turnHooks.closed(session.id);
      sessions.delete(params.sessionId);
      return {};
    });
  registerStatusMethods(app, { config, mcp, disabledTools, skills, workspace: files.root, session: sessionOf, state });
  registerHookMethods(app, { hooks, workspace: files.root, session: sessionOf });
  registerLanguageMethods(app, { sessions, session: sessionOf });
  registerControlMethods(app, { mcp, disabledTools, liveSessions: () => sessions.size, workspace: files.root, session: sessionOf, setMode, setTrust, rereadMcpServers: declaredMcpServers, attach: (client) => notifier.attach(client) });
  runtimeMcpServers.register(app, { mcp, workspace: files.root, declared: settingsMcpServers, trusted: () => trust.trusted, attach: (client) => notifier.attach(client) });
  registerGenerationMethods(app, { config, session: sessionOf, modelFor });
  registerAgentGenerateMethod(app, { config, workspace: files.root, modelFor });
  registerRewindMethod(app, sessionOf);
  return app;
}

/** Builds the app over `core` and serves the connection on `output`/`input` (NDJSON); resolves when it closes. */
export async function connectApp(core: AgentCore, output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>): Promise<void> {
  const connection = buildAgentApp(core).connect(acp.ndJsonStream(output, input));
  await connection.closed.catch(() => {});
}
