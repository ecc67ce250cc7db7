/**
 * What `svc agents` shows of each known agent: its pinned package, runtime, the entry the daemon
 * would run (`config/agent-launch.ts` resolves it the same way) and whether it is installed: the
 * version found in the package tree (unknown when its package.json cannot be read), or "not
 * installed" when the entry is missing. An entry named in settings is reported as
 * configured (present or missing), since svc did not install it.
 */
import { accessSync, constants, statSync } from "node:fs";
import { join } from "node:path";
import { AGENT_NAMES, AGENT_PACKAGES, agentDir, installedEntry, isInstallable, type AgentName } from "../config/agent-catalog.ts";
import type { AgentsConfig } from "../config/agents-config.ts";
import { readSettingsText } from "../config/settings-file.ts";

export type InstallState =
  | { readonly kind: "builtin" }
  | { readonly kind: "env" }
  | { readonly kind: "installed"; readonly version: string }
  | { readonly kind: "wrong_version"; readonly version: string }
  /** The entry is there but the package's package.json cannot be read (not a regular file, too large, not JSON, no version). */
  | { readonly kind: "unknown_version" }
  | { readonly kind: "not_installed" }
  | { readonly kind: "configured"; readonly present: boolean };

export interface AgentRow {
  readonly name: AgentName;
  /** `<package>@<pin>`, or null for builtin/generic. */
  readonly pkg: string | null;
  readonly runtime: string;
  readonly path: string | null;
  readonly state: InstallState;
}

const isFile = (path: string, native: boolean) => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, native ? constants.X_OK : constants.R_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The version in the installed package's package.json, or null when it cannot be read. It is read
 * like a settings file (`readSettingsText`): a FIFO, a device such as /dev/zero or a file over its
 * bound is refused at once rather than waited on or read without end.
 */
function installedVersion(dataDir: string, pkgName: string, dirName: Parameters<typeof agentDir>[1]): string | null {
  try {
    const text = readSettingsText(join(agentDir(dataDir, dirName), "node_modules", pkgName, "package.json"));
    const manifest = text === null ? null : (JSON.parse(text) as { version?: unknown } | null);
    return typeof manifest?.version === "string" ? manifest.version : null;
  } catch {
    return null;
  }
}

export function agentRows(config: AgentsConfig): AgentRow[] {
  return AGENT_NAMES.map((name): AgentRow => {
    if (name === "builtin") return { name, pkg: null, runtime: "svc itself (--acp)", path: null, state: { kind: "builtin" } };
    if (!isInstallable(name)) {
      const path = config.settings.agentPaths.generic ?? null;
      return { name, pkg: null, runtime: "script (SVC_CLI_ENTRY + SVC_CLI_ARGS)", path, state: path === null ? { kind: "env" } : { kind: "configured", present: isFile(path, false) } };
    }
    const pkg = AGENT_PACKAGES[name];
    const runtime = pkg.runtime === "native" ? "native binary" : "script (svc's Bun)";
    const configured = config.settings.agentPaths[name];
    if (configured !== undefined) return { name, pkg: `${pkg.name}@${pkg.version}`, runtime, path: configured, state: { kind: "configured", present: isFile(configured, pkg.runtime === "native") } };
    const path = installedEntry(config.dataDir, name, config.platform, config.arch);
    // The entry decides whether it runs; the version is only reported.
    const version = isFile(path, pkg.runtime === "native") ? installedVersion(config.dataDir, pkg.name, name) : undefined;
    const state: InstallState =
      version === undefined ? { kind: "not_installed" } : version === null ? { kind: "unknown_version" } : version === pkg.version ? { kind: "installed", version } : { kind: "wrong_version", version };
    return { name, pkg: `${pkg.name}@${pkg.version}`, runtime, path, state };
  });
}

export function describeState(state: InstallState): string {
  switch (state.kind) {
    case "builtin":
      return "built in";
    case "env":
      return "set SVC_CLI_ENTRY";
    case "installed":
      return `installed ${state.version}`;
    case "wrong_version":
      return `installed ${state.version} (not the pin: reinstall)`;
    case "unknown_version":
      return "installed, version unknown (unreadable package.json: reinstall)";
    case "not_installed":
      return "not installed";
    case "configured":
      return state.present ? "configured path" : "configured path missing";
  }
}
