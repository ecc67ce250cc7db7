/**
 * The mutation controls of a workspace and its sessions (`POST /session/:id/approval-mode`,
 * `/workspace/tools/:name/enable`, `/workspace/skills/...`, `/workspace/init`,
 * `/workspace/mcp/...`). Each asks the live agent through its profile (`profile-controls.ts`) or
 * rewrites the workspace settings the agent reads, then publishes its event.
 *
 * Workspace-level events (`tool_toggled`, `workspace_initialized`, `mcp_server_restarted`,
 * `mcp_server_restart_refused`, `settings_changed`) go to every live session of the workspace, as
 * the reference daemon's `publishWorkspaceEvent` does; with no live session there is nobody to tell.
 *
 * None of these starts an agent child: a control that needs the agent answers 409
 * `agent_not_running` while the workspace is idle, and the settings-file controls work without one.
 */
import { UNTRUSTED_MODES } from "../config/approval-modes.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { EnvelopeFields } from "../events/frame.ts";
import type { Logger } from "../logging/logger.ts";
import type { ExtensionPrefix } from "../runtime/agent-profile.ts";
import {
  agentCannot,
  announceToolToggle,
  refreshSkills,
  reloadMcp,
  restartMcp,
  setApprovalMode,
  type ApprovalMode,
  type McpReloadOptions,
  type McpReloadResult,
  type RestartResult,
} from "../runtime/profile-controls.ts";
import { addRuntimeMcp, removeRuntimeMcp, type RuntimeAddResult, type RuntimeRemoveResult } from "../runtime/mcp-runtime-controls.ts";
import type { Live, WorkspaceRuntime } from "../runtime/workspace-runtime.ts";
import { parseRuntimeEntry } from "../workspace/mcp-server-settings.ts";
import { initContextFile, type InitAction } from "../workspace/context-file.ts";
import { nameList, objectMember, settingsPath, toggledList, WorkspaceSettings, type SettingsDir } from "../workspace/workspace-settings.ts";
import { MAX_DISABLED_SKILLS, readHostDisabledSkills, skillKey } from "../config/skill-settings.ts";
import type { LiveSession } from "./live-session.ts";

/** Where each agent family reads its workspace settings; the built-in agent's also stands for an idle workspace. */
const SETTINGS_DIR: Readonly<Record<ExtensionPrefix, SettingsDir>> = { qwen: ".qwen", svc: ".svc" };
/** The context file `/workspace/init` prepares, per family (AGENTS.md, the cross-agent convention, otherwise). */
const QWEN_CONTEXT_FILE = "QWEN.md";
const DEFAULT_CONTEXT_FILE = "AGENTS.md";

const agentNotRunning = (what: string) =>
  new DaemonError(409, "agent_not_running", `No agent is running in this workspace to ${what}; open a session first`, { hint: "POST /session starts the agent" });

export interface ControlDeps {
  readonly runtime: WorkspaceRuntime;
  /** Whether the workspace is trusted now (asked at each control, so a revocation counts at once). */
  readonly trusted: () => boolean;
  /** The live sessions of the workspace (events fan out to them). */
  readonly sessions: () => Iterable<LiveSession>;
  readonly logger: Logger;
  /** The daemon's data dir: its `settings.json` disables skills for the built-in agent beyond any workspace write. */
  readonly dataDir: string;
}

export interface ApprovalModeAnswer {
  sessionId: string;
  mode: ApprovalMode;
  previous: string | null;
  persisted: boolean;
}

export interface SkillToggleAnswer {
  enabled: boolean;
  /** `applied`: every session took the change; `partial`: some failed to refresh. */
  activation: "applied" | "partial";
  sessionsRefreshed: number;
  sessionsFailed: number;
  results: { skillName: string; enabled: boolean; changed: boolean; disabledByHost?: true }[];
}

const untrusted = () => new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");

export class WorkspaceControls {
  private readonly settings: WorkspaceSettings;

  constructor(private readonly deps: ControlDeps) {
    this.settings = new WorkspaceSettings(deps.runtime.cwd);
  }

  /**
   * Sets a session's approval mode through the agent, then publishes `approval_mode_changed` on it.
   * In an untrusted workspace only `plan` and `default` are allowed (403 `untrusted_workspace`
   * otherwise, before the agent is asked). `persist` also writes `tools.approvalMode` to the
   * workspace settings the agent reads (not for the generic profile, which has none, nor `yolo`,
   * which the built-in agent never takes from a workspace file: `persisted` is then false); a
   * persisted change is announced to the workspace's other live sessions too, as it applies to
   * their next start.
   */
  async approvalMode(session: LiveSession, request: { mode: ApprovalMode; persist: boolean; planMode?: boolean }, clientId: string | null): Promise<ApprovalModeAnswer> {
    const live = session.runtime.current();
    if (!live) throw new DaemonError(503, "workspace_runtime_unavailable", "Workspace runtime is not active.", {}, 1);
    const modes = session.state.modes as { currentModeId?: unknown; availableModes?: { id?: unknown }[] } | undefined;
    const current = typeof modes?.currentModeId === "string" ? modes.currentModeId : null;
    const offered = (modes?.availableModes ?? []).map((m) => m?.id).filter((id): id is string => typeof id === "string");
    const persist = request.persist && live.profile.extensionPrefix !== null && !(request.mode === "yolo" && live.profile.extensionPrefix === "svc");
    // Refused before the agent is asked, so a refusal changes nothing.
    if (persist || !UNTRUSTED_MODES.includes(request.mode)) this.requireTrusted();
    const result = await setApprovalMode(live, session.agentSessionId, request, { current, offered });
    if (modes && typeof modes === "object") session.state.modes = { ...modes, currentModeId: result.current };
    let persisted = false;
    const dir = this.settingsDir(live);
    // The agent has switched: a settings file that cannot take the mode does not undo that, it
    // only leaves the change unpersisted (`persisted: false`, as the reference answers), and logged.
    if (persist) {
      try {
        await this.settings.update(dir, (doc) => {
          objectMember(doc, "tools", settingsPath(dir)).approvalMode = result.current;
        });
        persisted = true;
      } catch (err) {
        this.deps.logger.warn("approval mode not persisted", { sessionId: session.id, error: err instanceof Error ? err.message : String(err) });
      }
    }
    const data = { sessionId: session.id, previous: result.previous ?? result.current, next: result.current, persisted };
    const fields = clientId === null ? {} : { originatorClientId: clientId };
    session.publish("approval_mode_changed", data, fields);
    if (persisted) for (const peer of this.deps.sessions()) if (peer !== session) peer.publish("approval_mode_changed", data, fields);
    return { sessionId: session.id, mode: result.current, previous: result.previous, persisted };
  }

  /**
   * Adds `name` to (enabled false) or removes it from `tools.disabled` in the settings file of the
   * live agent's family (the built-in agent's when idle). All or nothing: a live built-in agent is
   * told once the new settings are known to be writable and before they are written, so a settings
   * file that refuses the change, or an agent that refuses it (502/504), leaves both as they were;
   * only a change that landed publishes `tool_toggled`.
   */
  async toggleTool(name: string, enabled: boolean): Promise<{ toolName: string; enabled: boolean }> {
    this.requireTrusted();
    const live = this.deps.runtime.current();
    const dir = this.settingsDir(live);
    const rel = settingsPath(dir);
    let announced = false;
    const announce = live ? async () => void (announced = await announceToolToggle(live, this.deps.runtime.cwd, name, enabled)) : undefined;
    try {
      await this.settings.update(
        dir,
        (doc) => {
          const tools = objectMember(doc, "tools", rel);
          tools.disabled = toggledList(nameList(tools.disabled, "tools.disabled", rel), name, enabled);
        },
        announce,
      );
    } catch (err) {
      // The agent took the change but the file could not be written: it is told to undo it.
      if (announced && live) await this.undoAnnounce(live, name, enabled);
      throw err;
    }
    this.publish("tool_toggled", { toolName: name, enabled });
    return { toolName: name, enabled };
  }

  /**
   * Enables or disables skills (`skills.disabled` in the settings file of the agent's family:
   * `.qwen/settings.json`, or `.svc/settings.json` for the built-in agent), then, when that changed anything, has the live agent refresh them and
   * publishes `settings_changed`. Only Qwen Code and the built-in agent have skills: another
   * agent, or none, is refused before anything is written.
   */
  async toggleSkills(names: readonly string[], enabled: boolean): Promise<SkillToggleAnswer> {
    this.requireTrusted();
    const live = this.deps.runtime.current();
    if (!live) throw agentNotRunning("toggle skills");
    if (live.profile.extensionPrefix === null) throw agentCannot(live, "toggle skills (it has none)");
    const dir = this.settingsDir(live);
    const { results, disabled } = await this.settings.update(dir, (doc) => {
      const skills = objectMember(doc, "skills", settingsPath(dir));
      // Names compare without case, as the agents read the list; the list is bounded, as they read it.
      const before = nameList(skills.disabled, "skills.disabled", settingsPath(dir));
      const wasDisabled = new Set(before.map(skillKey));
      let list = [...before];
      for (const name of names) list = [...list.filter((n) => skillKey(n) !== skillKey(name)), ...(enabled ? [] : [name])];
      list = [...new Set(list)].sort();
      if (list.length > MAX_DISABLED_SKILLS && list.length > before.length)
        throw new DaemonError(409, "skills_disabled_full", `skills.disabled holds at most ${MAX_DISABLED_SKILLS} names; enable some first`, { limit: MAX_DISABLED_SKILLS });
      skills.disabled = list;
      return { results: names.map((name) => ({ skillName: name, enabled, changed: wasDisabled.has(skillKey(name)) === enabled })), disabled: list };
    });
    // The built-in agent also reads the host's list, which a workspace write cannot undo: an enable
    // of a skill named there answers what the agent will do (still disabled), and says why.
    if (enabled && dir === SETTINGS_DIR.svc) {
      const host = readHostDisabledSkills(this.deps.dataDir);
      for (const r of results) if (host.has(skillKey(r.skillName))) Object.assign(r, { enabled: false, disabledByHost: true });
    }
    if (!results.some((r) => r.changed)) return { enabled, activation: "applied", sessionsRefreshed: 0, sessionsFailed: 0, results };
    const refresh = await refreshSkills(live, this.deps.runtime.cwd);
    this.publish("settings_changed", { key: "skills.disabled", value: disabled, scope: "workspace" });
    return { enabled, activation: refresh.sessionsFailed > 0 ? "partial" : "applied", ...refresh, results };
  }

  /** Prepares the agent's context file (`context-file.ts`); publishes `workspace_initialized`. */
  async init(force: boolean): Promise<{ path: string; action: InitAction }> {
    this.requireTrusted();
    const live = this.deps.runtime.current();
    const name = live?.profile.extensionPrefix === "qwen" ? QWEN_CONTEXT_FILE : DEFAULT_CONTEXT_FILE;
    const result = await initContextFile(this.deps.runtime.cwd, name, force);
    this.publish("workspace_initialized", result);
    return result;
  }

  /** Has the live agent reload its MCP servers; answers `{accepted}` (202). */
  async reloadMcp(options: McpReloadOptions): Promise<McpReloadResult> {
    this.requireTrusted();
    const live = this.deps.runtime.current();
    if (!live) throw agentNotRunning("reload MCP servers");
    return await reloadMcp(live, this.deps.runtime.cwd, options);
  }

  /**
   * Has the live agent restart MCP server `serverName` (one pooled entry with `entryIndex`); each
   * outcome is published: `mcp_server_restarted`, or `mcp_server_restart_refused` with the reason.
   */
  async restartMcp(serverName: string, entryIndex: number | undefined): Promise<RestartResult> {
    this.requireTrusted();
    const live = this.deps.runtime.current();
    if (!live) throw agentNotRunning("restart MCP servers");
    const result = await restartMcp(live, serverName, entryIndex);
    if (result.entries) for (const entry of result.entries) this.publishRestart(serverName, entry, entry.entryIndex);
    else this.publishRestart(serverName, result, undefined);
    return result;
  }

  /**
   * Adds server `name` to the live agent for as long as it runs (`mcp_server_runtime_mutation`);
   * published as `mcp_server_added` unless the agent skipped it.
   */
  async addRuntimeMcp(name: string, raw: unknown, clientId: string): Promise<RuntimeAddResult> {
    this.requireTrusted();
    const config = parseRuntimeEntry(name, raw);
    const live = this.deps.runtime.current();
    if (!live) throw agentNotRunning("add an MCP server");
    const result = await addRuntimeMcp(live, this.deps.runtime.cwd, name, { ...config }, clientId);
    if (!("skipped" in result)) this.publish("mcp_server_added", { ...result }, { originatorClientId: clientId });
    this.deps.logger.info("runtime MCP server added", { serverName: name, skipped: "skipped" in result });
    return result;
  }

  /** Removes runtime server `name` from the live agent; published as `mcp_server_removed` when one was removed. */
  async removeRuntimeMcp(name: string, clientId: string): Promise<RuntimeRemoveResult> {
    this.requireTrusted();
    const live = this.deps.runtime.current();
    if (!live) throw agentNotRunning("remove an MCP server");
    const result = await removeRuntimeMcp(live, this.deps.runtime.cwd, name, clientId);
    if (!("skipped" in result)) {
      const { removed: _removed, ...data } = result;
      this.publish("mcp_server_removed", data, { originatorClientId: clientId });
    }
    return result;
  }

  /** One outcome (already rebuilt and bounded by `restartMcp`) as its event, naming the requested server. */
  private publishRestart(serverName: string, outcome: { restarted?: boolean; durationMs?: number; reason?: string }, entryIndex: number | undefined): void {
    const index = entryIndex === undefined ? {} : { entryIndex };
    if (outcome.restarted === true) this.publish("mcp_server_restarted", { serverName, durationMs: outcome.durationMs ?? 0, ...index });
    else this.publish("mcp_server_restart_refused", { serverName, reason: outcome.reason ?? "restart_failed", ...index });
  }

  /** Tells the agent the toggle it took is void (best effort: a failure is logged, the agent is then out of step until restarted). */
  private async undoAnnounce(live: Live, name: string, enabled: boolean): Promise<void> {
    try {
      await announceToolToggle(live, this.deps.runtime.cwd, name, !enabled);
    } catch (err) {
      this.deps.logger.warn("tool toggle not undone in the agent after the settings write failed", { toolName: name, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private settingsDir(live: Live | null): SettingsDir {
    return (live?.profile.extensionPrefix ?? this.deps.runtime.extensionPrefix) === "qwen" ? SETTINGS_DIR.qwen : SETTINGS_DIR.svc;
  }

  private requireTrusted(): void {
    if (!this.deps.trusted()) throw untrusted();
  }

  private publish(type: string, data: Record<string, unknown>, fields?: EnvelopeFields): void {
    for (const session of this.deps.sessions()) session.publish(type, data, fields);
  }
}
