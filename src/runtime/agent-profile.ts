/**
 * Agent profiles map what the daemon needs onto the methods an agent actually implements, and
 * carry the agent's wire facts (`agent-profiles/`). The profile is first the one of the agent
 * `--agent` launched (`launchProfile`: its environment and the `authenticate` call after
 * initialize), then confirmed or refined by `agentInfo.name` after `initialize` (`profileFor`: a
 * `generic` launch of Qwen Code still gets the qwen-code profile):
 * - `generic`: standard ACP only;
 * - `claude`, `gemini`, `codex`, `opencode`: standard ACP, with their facts;
 * - `qwen-code`: `qwen/control/session/close`, `craft/cancelPendingPrompt` and `qwen/status/*`,
 *   each with a standard fallback (see spec/acp-agents.md §3–4);
 * - `svc`: the built-in agent (`svc --acp`): standard ACP, plus `svc/status/*` and `svc/control/*`
 *   in the shapes of the qwen methods of the same names.
 */
import type { AgentName } from "../config/agent-catalog.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import { AgentRequestError, type AcpChannel } from "./acp-channel.ts";
import { CLAUDE_FACTS } from "./agent-profiles/claude.ts";
import { CODEX_FACTS } from "./agent-profiles/codex.ts";
import type { AgentFacts } from "./agent-profiles/facts.ts";
import { GEMINI_FACTS } from "./agent-profiles/gemini.ts";
import { OPENCODE_FACTS } from "./agent-profiles/opencode.ts";
import { QWEN_CODE_FACTS } from "./agent-profiles/qwen-code.ts";
import { GENERIC_FACTS, SVC_FACTS } from "./agent-profiles/standard.ts";

/** Variables every child gets: stops Qwen Code from re-spawning itself under us. */
export const SPAWN_ENV: Readonly<Record<string, string>> = { QWEN_CODE_NO_RELAUNCH: "true" };

/** Budget for housekeeping requests (close, cancel, status) so a stuck agent cannot hang a route. */
export const CONTROL_TIMEOUT_MS = 10_000;
/**
 * Budget for one workspace status query (`/workspace/{mcp,skills,providers,tools,preflight}`): an
 * agent that does not answer in time becomes an `init_timeout` cell in the envelope's `errors`.
 */
export const STATUS_TIMEOUT_MS = 5000;
const QWEN_CLOSE_DRAIN_MS = 8000;
const METHOD_NOT_FOUND = -32601;

export type ProfileName = "generic" | "qwen-code" | "svc" | "claude" | "gemini" | "codex" | "opencode";

/** The family of extension methods (`<prefix>/status/*`, `<prefix>/control/*`) a profile speaks, if any. */
export type ExtensionPrefix = "qwen" | "svc";

/** The workspace snapshots an extension profile asks for as `<prefix>/status/workspace/<section>` with `{cwd}`. */
export type WorkspaceSection = "mcp" | "skills" | "providers" | "tools" | "preflight" | "hooks";

/** The session views an extension profile asks for as `<prefix>/status/session/<view>` with `{sessionId}`. */
export type SessionView = "context_usage" | "tasks" | "stats" | "lsp" | "resources" | "hooks";

export interface SessionState {
  readonly models?: unknown;
  readonly modes?: unknown;
  readonly configOptions?: unknown;
}

export interface AgentProfile {
  readonly name: ProfileName;
  readonly extensionPrefix: ExtensionPrefix | null;
  readonly facts: AgentFacts;
  closeSession(channel: AcpChannel, sessionId: string): Promise<void>;
  cancelPrompt(channel: AcpChannel, sessionId: string): Promise<void>;
  /** Switches the session's model; resolves with the agent's result. */
  setModel(channel: AcpChannel, sessionId: string, modelId: string, state: SessionState): Promise<Record<string, unknown>>;
  /** Live model/mode/config state, when the agent can report it beyond what session/new gave. */
  sessionContext(channel: AcpChannel, sessionId: string): Promise<Record<string, unknown> | null>;
  /** The agent's commands and skill names, when it can report them on demand. */
  supportedCommands(channel: AcpChannel, sessionId: string): Promise<SupportedCommands | null>;
  /**
   * The agent's own workspace snapshot (its answer as sent, to be sanitized by the caller), or null
   * when the profile has no such method or the agent answers `-32601`. Bounded by `timeoutMs`.
   */
  workspaceStatus(channel: AcpChannel, section: WorkspaceSection, cwd: string, timeoutMs: number): Promise<Record<string, unknown> | null>;
  /** The agent's answer to a session view, or null when the profile or the agent cannot give it. */
  sessionView(channel: AcpChannel, view: SessionView, sessionId: string): Promise<Record<string, unknown> | null>;
}

const isMissing = (err: unknown) => err instanceof AgentRequestError && err.rpcCode === METHOD_NOT_FOUND;

function hasModelConfigOption(state: SessionState): boolean {
  return Array.isArray(state.configOptions) && state.configOptions.some((o) => (o as { id?: unknown; category?: unknown }).id === "model" || (o as { category?: unknown }).category === "model");
}

async function standardSetModel(channel: AcpChannel, sessionId: string, modelId: string, state: SessionState, preferConfigOption: boolean) {
  if (preferConfigOption || hasModelConfigOption(state)) {
    try {
      return await channel.request<Record<string, unknown>>("session/set_config_option", { sessionId, configId: "model", value: modelId }, { timeoutMs: CONTROL_TIMEOUT_MS });
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
  return await channel.request<Record<string, unknown>>("session/set_model", { sessionId, modelId }, { timeoutMs: CONTROL_TIMEOUT_MS });
}

/**
 * `<prefix>/status/<path>`, or null when the agent does not implement it. A status read is
 * best-effort: its timeout does not count towards the wedge rule (see `RequestOptions.bestEffort`).
 */
async function extensionStatus<T>(channel: AcpChannel, prefix: ExtensionPrefix, path: string, params: Record<string, unknown>, timeoutMs: number): Promise<T | null> {
  try {
    return await channel.request<T>(`${prefix}/status/${path}`, params, { timeoutMs, bestEffort: true });
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** `<prefix>/status/session/<method>`, or null when the agent does not implement it. */
function sessionStatus<T>(channel: AcpChannel, prefix: ExtensionPrefix, method: string, sessionId: string, extra: Record<string, unknown> = {}): Promise<T | null> {
  return extensionStatus<T>(channel, prefix, `session/${method}`, { sessionId, ...extra }, CONTROL_TIMEOUT_MS);
}

/** Params of a session view beyond `sessionId`: the summary form of context usage (spec: acp-agents §4.1). */
const VIEW_PARAMS: Readonly<Record<SessionView, Record<string, unknown>>> = { context_usage: { detail: false }, tasks: {}, stats: {}, lsp: {}, resources: {}, hooks: {} };

/** The status queries of a profile that speaks `<prefix>/status/*`. */
const extensionQueries = (prefix: ExtensionPrefix): Pick<AgentProfile, "workspaceStatus" | "sessionView"> => ({
  workspaceStatus: (channel, section, cwd, timeoutMs) => extensionStatus(channel, prefix, `workspace/${section}`, { cwd }, timeoutMs),
  sessionView: (channel, view, sessionId) => sessionStatus(channel, prefix, view, sessionId, VIEW_PARAMS[view]),
});

/** A session's commands (ACP available commands, as the agent sent them) and the names of its skills. */
export interface SupportedCommands {
  readonly availableCommands: unknown[];
  readonly availableSkills: string[];
}

/** Skill names kept from an agent's answer: at most this many, each at most MAX_SKILL_NAME characters (longer ones are dropped). */
const MAX_SKILLS = 1000;
const MAX_SKILL_NAME = 256;

async function statusCommands(channel: AcpChannel, prefix: ExtensionPrefix, sessionId: string): Promise<SupportedCommands | null> {
  const result = await sessionStatus<{ availableCommands?: unknown; availableSkills?: unknown }>(channel, prefix, "supported_commands", sessionId);
  if (!Array.isArray(result?.availableCommands)) return null;
  const skills = Array.isArray(result.availableSkills) ? result.availableSkills : [];
  return {
    availableCommands: result.availableCommands,
    availableSkills: skills.filter((name): name is string => typeof name === "string" && name.length > 0 && name.length <= MAX_SKILL_NAME).slice(0, MAX_SKILLS),
  };
}

const generic: AgentProfile = {
  name: "generic",
  extensionPrefix: null,
  facts: GENERIC_FACTS,
  async closeSession(channel, sessionId) {
    const caps = channel.init.agentCapabilities?.sessionCapabilities as { close?: unknown } | undefined;
    if (caps?.close == null) return; // nothing to tell an agent that cannot close sessions
    await channel.request("session/close", { sessionId }, { timeoutMs: CONTROL_TIMEOUT_MS });
  },
  async cancelPrompt(channel, sessionId) {
    await channel.notify("session/cancel", { sessionId });
  },
  setModel: (channel, sessionId, modelId, state) => standardSetModel(channel, sessionId, modelId, state, false),
  sessionContext: async () => null,
  supportedCommands: async () => null,
  // Standard ACP has no status methods: the daemon builds what it can from session state.
  workspaceStatus: async () => null,
  sessionView: async () => null,
};

const qwenCode: AgentProfile = {
  name: "qwen-code",
  extensionPrefix: "qwen",
  facts: QWEN_CODE_FACTS,
  async closeSession(channel, sessionId) {
    try {
      await channel.request("qwen/control/session/close", { sessionId, drainTimeoutMs: QWEN_CLOSE_DRAIN_MS }, { timeoutMs: QWEN_CLOSE_DRAIN_MS + 2000 });
    } catch (err) {
      if (!isMissing(err)) throw err;
      await generic.closeSession(channel, sessionId);
    }
  },
  async cancelPrompt(channel, sessionId) {
    try {
      const result = await channel.request<{ cancelled?: boolean }>("craft/cancelPendingPrompt", { sessionId }, { timeoutMs: CONTROL_TIMEOUT_MS });
      if (result?.cancelled) return;
    } catch (err) {
      if (!(err instanceof DaemonError)) throw err;
    }
    await channel.notify("session/cancel", { sessionId });
  },
  // session/set_model makes Qwen Code persist the choice into the user's settings; the config
  // option switches without persisting.
  setModel: (channel, sessionId, modelId, state) => standardSetModel(channel, sessionId, modelId, state, true),
  sessionContext: (channel, sessionId) => sessionStatus<Record<string, unknown>>(channel, "qwen", "context", sessionId),
  supportedCommands: (channel, sessionId) => statusCommands(channel, "qwen", sessionId),
  ...extensionQueries("qwen"),
};

const svc: AgentProfile = {
  ...generic,
  name: "svc",
  extensionPrefix: "svc",
  facts: SVC_FACTS,
  sessionContext: (channel, sessionId) => sessionStatus<Record<string, unknown>>(channel, "svc", "context", sessionId),
  supportedCommands: (channel, sessionId) => statusCommands(channel, "svc", sessionId),
  ...extensionQueries("svc"),
};

/** Agents that speak standard ACP only: the generic behaviour with their own facts. */
const claude: AgentProfile = { ...generic, name: "claude", facts: CLAUDE_FACTS };
const gemini: AgentProfile = { ...generic, name: "gemini", facts: GEMINI_FACTS };
const codex: AgentProfile = { ...generic, name: "codex", facts: CODEX_FACTS };
const opencode: AgentProfile = { ...generic, name: "opencode", facts: OPENCODE_FACTS };

const BY_LAUNCH: Readonly<Record<AgentName, AgentProfile>> = { builtin: svc, generic, "qwen-code": qwenCode, claude, gemini, codex, opencode };
const BY_AGENT_INFO: ReadonlyMap<string, AgentProfile> = new Map(
  [svc, qwenCode, claude, gemini, codex, opencode].flatMap((profile) => profile.facts.agentInfoNames.map((name) => [name, profile] as const)),
);

/** The profile of the agent `--agent` selected, before it has said who it is. */
export function launchProfile(launched: AgentName): AgentProfile {
  return BY_LAUNCH[launched];
}

/** The profile after `initialize`: the one `agentInfo.name` names, else the launched agent's. */
export function profileFor(agentName: string, launched: AgentName = "generic"): AgentProfile {
  return BY_AGENT_INFO.get(agentName) ?? BY_LAUNCH[launched];
}

/**
 * The ACP `authenticate` call a profile needs after `initialize` (codex: `api-key` when
 * OPENAI_API_KEY is set), made only when the agent's initialize offers that method. Bounded by
 * `timeoutMs`; an error answer fails the start like an initialize error.
 */
export async function authenticateIfNeeded(channel: AcpChannel, profile: AgentProfile, childEnv: Readonly<Record<string, string>>, timeoutMs: number): Promise<boolean> {
  const auth = profile.facts.authenticate;
  if (auth === null || !childEnv[auth.whenEnv]) return false;
  const offered = (channel.init.authMethods ?? []).some((m) => (m as { id?: unknown; methodId?: unknown }).id === auth.methodId || (m as { methodId?: unknown }).methodId === auth.methodId);
  if (!offered) return false;
  await channel.request("authenticate", { methodId: auth.methodId }, { timeoutMs });
  return true;
}
