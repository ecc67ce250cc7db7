/**
 * Extensions (the reference's model, `qwen-extension.json`): the seam the daemon's extension
 * routes load on first use. Install from a local folder (`extension-install.ts`: a bounded copy
 * under the data dir, nothing run) or a scoped npm package (`registry-install.ts`: checked against
 * the registry's integrity, unpacked, then installed as a folder), list, enable, disable,
 * uninstall, each change an operation (`extension-operations.ts`) after which the live agent is
 * refreshed (`refresh`: its MCP servers reloaded; skills and instruction files it reads at each
 * turn). What an enabled extension brings the built-in agent: skills, instruction files and MCP
 * servers (`extension-contributions.ts`, `builtin-agent/skills/`).
 *
 * Extensions are installed for the user, not per workspace; the routes that change them are
 * refused in an untrusted workspace (the reference's rule), listing is not.
 */
import { createHash } from "node:crypto";
import { opendirSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { DaemonError } from "../errors/daemon-error.ts";
import { sweepInstallLeftovers } from "./install-leftovers.ts";
import { installFromRegistry } from "./registry-install.ts";
import { checkSource, installFromFolder, isRegistrySource, removeExtension, setEnabled } from "./extension-install.ts";
import { ExtensionOperations, type ExtensionOperation, type OperationKind } from "./extension-operations.ts";
import { isInstalled, listExtensions, readExtension, type InstalledExtension } from "./extension-store.ts";

export type { ExtensionOperation } from "./extension-operations.ts";

/** Most skill folders named in one extension's details. */
const MAX_LISTED_SKILLS = 200;

export interface ExtensionDeps {
  readonly dataDir: string;
  readonly workspace: string;
  /** The npm registry registry packages come from (`SVC_NPM_REGISTRY`). */
  readonly registry: string;
  /** Has the live agent take the change (null: no agent is running). */
  readonly refresh: () => Promise<{ refreshed: number; failed: number } | null>;
  /** Tells the workspace's live sessions an operation finished (`extensions_changed`). */
  readonly publish: (data: ExtensionsChanged) => void;
}

export interface ExtensionsChanged {
  readonly status: "installed" | "enabled" | "disabled" | "uninstalled" | "failed";
  readonly name?: string;
  readonly source?: string;
  readonly refreshed: number;
  readonly failed: number;
  readonly error?: string;
}

/** The names of an extension's skill folders (those holding a SKILL.md; not parsed here). */
function skillFolders(ext: InstalledExtension): string[] {
  const names: string[] = [];
  let dir;
  try {
    dir = opendirSync(join(ext.path, "skills"));
  } catch {
    return names;
  }
  try {
    for (let e = dir.readSync(); e !== null && names.length < MAX_LISTED_SKILLS; e = dir.readSync()) {
      if (!e.isDirectory()) continue;
      const st = lstatSync(join(ext.path, "skills", e.name, "SKILL.md"), { throwIfNoEntry: false });
      if (st?.isFile()) names.push(e.name);
    }
  } finally {
    dir.closeSync();
  }
  return names.sort();
}

/** The reference's 64-hex extension id, derived from the name (stable across reinstalls). */
export const extensionId = (name: string) => createHash("sha256").update(`svc-extension:${name}`).digest("hex");

function cell(ext: InstalledExtension) {
  const { manifest, record } = ext;
  const skills = skillFolders(ext);
  const servers = Object.keys(manifest.mcpServers);
  return {
    kind: "extension" as const,
    id: extensionId(ext.name),
    name: ext.name,
    ...(manifest.displayName ? { displayName: manifest.displayName } : {}),
    ...(manifest.description ? { description: manifest.description } : {}),
    version: manifest.version,
    isActive: record.enabled,
    source: record.source.path,
    installType: record.source.type,
    updateState: "not updatable" as const,
    capabilities: { mcpServerCount: servers.length, skillCount: skills.length, agentCount: 0, hookCount: 0, commandCount: 0, contextFileCount: manifest.contextFiles.length, channelCount: 0, hasSettings: false },
    details: { mcpServers: servers, commands: [], skills, agents: [], contextFiles: [...manifest.contextFiles], settings: [] },
  };
}

/**
 * Each installed extension's activation in a workspace (`GET /workspaces/:ws/extensions`, the
 * reference's shape): svc keeps one state per extension, the user's, in force in every workspace,
 * so no workspace override exists (`workspaceActivation: null`, `activationSource: "default"`).
 */
export function workspaceActivations(dataDir: string) {
  return listExtensions(dataDir).extensions.map((ext) => {
    const state = ext.record.enabled ? ("enabled" as const) : ("disabled" as const);
    return { extensionId: extensionId(ext.name), name: ext.name, version: ext.manifest.version, defaultActivation: state, workspaceActivation: null, effectiveActivation: state, activationSource: "default" as const };
  });
}

const notFound = (name: string) => new DaemonError(404, "extension_not_found", `Extension "${name}" not found`, { name });

export class ExtensionService {
  private readonly operations = new ExtensionOperations();

  constructor(private readonly deps: ExtensionDeps) {}

  status() {
    return { v: 1 as const, workspaceCwd: this.deps.workspace, initialized: true as const, extensions: listExtensions(this.deps.dataDir).extensions.map(cell) };
  }

  operation(operationId: string): ExtensionOperation {
    const op = this.operations.get(operationId);
    if (!op) throw new DaemonError(404, "extension_operation_not_found", `Extension operation "${operationId}" not found`);
    return op;
  }

  activeOperations(): ExtensionOperation[] {
    return this.operations.active();
  }

  install(source: string): ExtensionOperation {
    checkSource(source);
    return this.start("install", { source }, async () => {
      await sweepInstallLeftovers(this.deps.dataDir);
      const result = isRegistrySource(source) ? await installFromRegistry(this.deps.dataDir, this.deps.registry, source) : await installFromFolder(this.deps.dataDir, source);
      return { status: "installed", source, ...result, ...(await this.refreshed()) };
    });
  }

  setActive(name: string, enabled: boolean): ExtensionOperation {
    this.installed(name);
    return this.start(enabled ? "enable" : "disable", { name }, async () => {
      const ext = this.installed(name);
      const changed = await setEnabled(ext.path, ext.record, enabled);
      return { status: enabled ? "enabled" : "disabled", name, changed, ...(changed ? await this.refreshed() : {}) };
    });
  }

  uninstall(name: string): ExtensionOperation {
    this.installed(name);
    return this.start("uninstall", { name }, async () => {
      this.installed(name);
      await removeExtension(this.deps.dataDir, name);
      return { status: "uninstalled", name, ...(await this.refreshed()) };
    });
  }

  /** Queues an operation whose end, success or failure, is published. */
  private start(kind: OperationKind, about: { name?: string; source?: string }, run: () => Promise<Record<string, unknown> & { status: ExtensionsChanged["status"] }>): ExtensionOperation {
    return this.operations.start(kind, about, async () => {
      try {
        const result = await run();
        this.deps.publish({ ...about, status: result.status, refreshed: Number(result.refreshed ?? 0), failed: Number(result.failed ?? 0) });
        return result;
      } catch (err) {
        this.deps.publish({ ...about, status: "failed", refreshed: 0, failed: 0, error: String((err as Error).message ?? err).slice(0, 500) });
        throw err;
      }
    });
  }

  /** Has the live agent take the extensions as they are now. */
  async refresh(): Promise<{ refreshed: number; failed: number }> {
    return (await this.deps.refresh()) ?? { refreshed: 0, failed: 0 };
  }

  private async refreshed(): Promise<{ refreshed?: number; failed?: number }> {
    try {
      return (await this.deps.refresh()) ?? {};
    } catch {
      return { refreshed: 0, failed: 1 };
    }
  }

  private installed(name: string): InstalledExtension {
    const found = readExtension(this.deps.dataDir, name);
    if (!isInstalled(found)) throw notFound(name);
    return found;
  }
}
