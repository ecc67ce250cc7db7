/**
 * MCP server management (`workspace_mcp_manage`): the declarations of the host settings (`<data
 * dir>/settings.json`, the reference's `user` scope) or of one workspace's settings file (`.svc/`,
 * `.qwen/` under Qwen Code; scope `workspace`, trusted workspaces only: 403 `untrusted_workspace`
 * otherwise, as the reference) added, replaced, removed, enabled and disabled, and the running
 * agents told.
 *
 * - Writes go through `WorkspaceSettings` (read, change, write a temp file, rename; other keys kept;
 *   one change at a time). A declaration is checked first (`mcp-server-settings.ts`); a refused
 *   change writes nothing.
 * - Secrets never leave: every answer carries the declarations redacted, a declaration sent back
 *   with the redaction marker keeps the stored secret, and the log names servers only.
 * - Runtime mutation: after a write the live agent of each workspace concerned (every one for a host
 *   change, a trusted one for its own file) is told to reload its MCP
 *   servers (its reload reads the settings anew and reconnects; the next prompt waits for that
 *   pass), so the change holds from its next turn, without a restart: `activation: "reconciling"`.
 *   With no agent running, or in an untrusted workspace, the agent reads the file when it starts:
 *   `activation: "deferred"` (the reference's two values).
 * - Guardrails: at most MAX_DECLARED_SERVERS declarations; under an `enforce` client budget, a new
 *   enabled server past the budget is refused with 409 `mcp_budget_would_exceed` (it could never
 *   connect: the budget refuses in declaration order, and it would be the last).
 * - `mcp.excluded` (the reference's operator list) names the disabled servers; the agent leaves them out.
 */
import { basename, dirname, join } from "node:path";
import type { McpBudgetMode } from "../config/agent-config.ts";
import { objectAt, readSettingsDoc } from "../config/settings-doc.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { reloadMcp } from "../runtime/profile-controls.ts";
import type { WorkspaceScope } from "../workspace-registry/workspace-scope.ts";
import { MAX_DECLARED_SERVERS, redactServer, redactServers, restoreSecrets, type McpServerEntry } from "../workspace/mcp-server-settings.ts";
import { nameList, objectMember, settingsPath, WorkspaceSettings, type HostSettingsDir, type SettingsDir, type SettingsDoc } from "../workspace/workspace-settings.ts";

export type Activation = "reconciling" | "deferred";
/** Where a declaration lives: the host settings (`user`, the reference's name) or the workspace's. */
export type McpScope = "user" | "workspace";

export interface McpConfigDeps {
  readonly dataDir: string;
  /** Every workspace served (a host change reaches each trusted one's agent). */
  readonly scopes: () => readonly WorkspaceScope[];
  readonly budget: { readonly clientBudget: number | null; readonly budgetMode: McpBudgetMode };
  readonly logger: Logger;
}

export interface McpConfigStatus {
  readonly v: 1;
  readonly effective: Record<string, Record<string, unknown>>;
  readonly user: Record<string, Record<string, unknown>>;
  readonly workspace: Record<string, Record<string, unknown>>;
}

const HOST_FILE = "settings.json";

/** One settings file: its writer (one per file, so changes to it are serialized), the directory it is in, and its name for messages. */
interface Target {
  readonly writer: WorkspaceSettings;
  readonly dir: SettingsDir | HostSettingsDir;
  readonly rel: string;
}

export class McpConfig {
  private readonly hostTarget: Target;
  /** One writer per workspace settings file written (bounded by the workspaces served). */
  private readonly workspaceWriters = new Map<string, WorkspaceSettings>();

  constructor(private readonly deps: McpConfigDeps) {
    const dir = { host: basename(deps.dataDir) };
    this.hostTarget = { writer: new WorkspaceSettings(dirname(deps.dataDir)), dir, rel: settingsPath(dir) };
  }

  /** The host's, the workspace's and the merged declarations, redacted; the workspace's count only while it is trusted. */
  status(scope: WorkspaceScope): McpConfigStatus {
    const warnings: string[] = [];
    const user = redactServers(readSettingsDoc(join(this.deps.dataDir, HOST_FILE), warnings).mcpServers);
    const workspace = redactServers(readSettingsDoc(join(scope.path, settingsPath(settingsDirOf(scope))), warnings).mcpServers);
    return { v: 1, effective: { ...user, ...(scope.trust.trusted ? workspace : {}) }, user, workspace };
  }

  /** Adds or replaces server `name`; answers its declaration as stored, redacted. */
  async put(scope: WorkspaceScope, where: McpScope, name: string, entry: McpServerEntry): Promise<{ name: string; scope: McpScope; config: Record<string, unknown>; activation: Activation }> {
    const target = this.target(scope, where);
    const stored = await target.writer.update(target.dir, (doc) => {
      const servers = objectMember(doc, "mcpServers", target.rel);
      const isNew = !Object.hasOwn(servers, name);
      if (isNew && Object.keys(servers).length >= MAX_DECLARED_SERVERS) {
        throw new DaemonError(409, "mcp_server_limit", `At most ${MAX_DECLARED_SERVERS} MCP servers are declared in one settings file; remove one first`, { limit: MAX_DECLARED_SERVERS });
      }
      if (isNew) this.checkBudget(doc, servers, name);
      const next = restoreSecrets(entry, servers[name]);
      servers[name] = next;
      return next;
    });
    this.deps.logger.info("MCP server declared", { serverName: name, scope: where });
    return { name, scope: where, config: redactServer(stored), activation: await this.activate(scope, where) };
  }

  /** Removes server `name` (nothing to remove is not an error, as in the reference). */
  async remove(scope: WorkspaceScope, where: McpScope, name: string): Promise<{ name: string; scope: McpScope; activation: Activation }> {
    const target = this.target(scope, where);
    await target.writer.update(target.dir, (doc) => {
      if (doc.mcpServers !== undefined) delete objectMember(doc, "mcpServers", target.rel)[name];
    });
    this.deps.logger.info("MCP server removed", { serverName: name, scope: where });
    return { name, scope: where, activation: await this.activate(scope, where) };
  }

  /** Enables (drops from `mcp.excluded`) or disables (adds to it) server `name`. */
  async toggle(
    scope: WorkspaceScope,
    where: McpScope,
    name: string,
    enabled: boolean,
  ): Promise<{ serverName: string; action: "enable" | "disable"; ok: true; changed: boolean; activation: Activation | "applied" }> {
    const target = this.target(scope, where);
    const changed = await target.writer.update(target.dir, (doc) => {
      const mcp = objectMember(doc, "mcp", target.rel);
      const existing = nameList(mcp.excluded, "mcp.excluded", target.rel);
      if (enabled === !existing.includes(name)) return false;
      if (enabled) this.checkBudget(doc, objectAt(doc, "mcpServers"), null, name);
      mcp.excluded = enabled ? existing.filter((n) => n !== name) : [...existing, name];
      return true;
    });
    const action = enabled ? "enable" : "disable";
    if (changed) this.deps.logger.info("MCP server toggled", { serverName: name, action, scope: where });
    return { serverName: name, action, ok: true, changed, activation: changed ? await this.activate(scope, where) : "applied" };
  }

  private target(scope: WorkspaceScope, where: McpScope): Target {
    if (where === "user") return this.hostTarget;
    if (!scope.trust.trusted) throw new DaemonError(403, "untrusted_workspace", "Workspace is not trusted.");
    const dir = settingsDirOf(scope);
    const key = join(scope.path, dir);
    let writer = this.workspaceWriters.get(key);
    if (!writer) this.workspaceWriters.set(key, (writer = new WorkspaceSettings(scope.path)));
    return { writer, dir, rel: settingsPath(dir) };
  }

  /**
   * 409 `mcp_budget_would_exceed` when, under an `enforce` budget, the enabled servers of this file
   * (with `adding`, or with `reenabling` taken off its excluded list) would outnumber it.
   */
  private checkBudget(doc: SettingsDoc, servers: SettingsDoc, adding: string | null, reenabling?: string): void {
    const { clientBudget, budgetMode } = this.deps.budget;
    if (budgetMode !== "enforce" || clientBudget === null) return;
    const excludedRaw = objectAt(doc, "mcp").excluded;
    const excluded = new Set(Array.isArray(excludedRaw) ? excludedRaw : []);
    if (reenabling !== undefined) excluded.delete(reenabling);
    const names = new Set(Object.keys(servers));
    if (adding !== null) names.add(adding);
    const enabled = [...names].filter((n) => !excluded.has(n)).length;
    if (enabled > clientBudget) {
      throw new DaemonError(409, "mcp_budget_would_exceed", `The MCP client budget (${clientBudget}, enforce mode) would be exceeded: ${enabled} servers enabled`, {
        budget: clientBudget,
        enabledCount: enabled,
      });
    }
  }

  /**
   * Tells the live agent of each trusted workspace concerned to reload its servers: every one for a
   * host change (as the reference), `scope`'s for its own file. A failure is logged (that agent
   * picks the change up when it starts again).
   */
  private async activate(scope: WorkspaceScope, where: McpScope): Promise<Activation> {
    const concerned = where === "user" ? this.deps.scopes() : [scope];
    const outcomes = await Promise.all(
      concerned.map(async (s) => {
        const live = await s.runtime.settled();
        // The host's servers run in every workspace, trusted or not; a workspace file's only in a trusted one.
        if (!live || (where === "workspace" && !s.trust.trusted)) return false;
        try {
          return (await reloadMcp(live, s.runtime.cwd, {})).accepted;
        } catch (err) {
          this.deps.logger.warn("MCP reload after a settings change failed", { workspace: s.id, error: err instanceof Error ? err.message : String(err) });
          return false;
        }
      }),
    );
    return outcomes.includes(true) ? "reconciling" : "deferred";
  }
}

/** The settings directory the workspace's agent reads: `.qwen` under Qwen Code (running or launched), else `.svc` (the built-in agent's). */
const settingsDirOf = (scope: WorkspaceScope): SettingsDir => (scope.runtime.extensionPrefix === "qwen" ? ".qwen" : ".svc");
