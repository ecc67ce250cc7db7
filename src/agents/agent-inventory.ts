/**
 * What `svc agents` shows of each known agent: its pinned package, runtime, the entry the daemon
 * would run (`config/agent-launch.ts` resolves it the same way) and whether it is installed: the
 * version found in the package tree, or "not installed". An entry named in settings is reported as
 * configured (present or missing), since svc did not install it.
 */
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AGENT_NAMES, AGENT_PACKAGES, agentDir, installedEntry, isInstallable, type AgentName } from "../config/agent-catalog.ts";
import type { AgentsConfig } from "../config/agents-config.ts";

export type InstallState =
  | { readonly kind: "builtin" }
  | { readonly kind: "env" }
  | { readonly kind: "installed"; readonly version: string }
  | { readonly kind: "wrong_version"; readonly version: string }
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

function installedVersion(dataDir: string, pkgName: string, dirName: Parameters<typeof agentDir>[1]): string | null {
  try {
    const manifest = JSON.parse(readFileSync(join(agentDir(dataDir, dirName), "node_modules", pkgName, "package.json"), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
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
    const version = installedVersion(config.dataDir, pkg.name, name);
    const state: InstallState =
      version === null || !isFile(path, pkg.runtime === "native") ? { kind: "not_installed" } : version === pkg.version ? { kind: "installed", version } : { kind: "wrong_version", version };
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
    case "not_installed":
      return "not installed";
    case "configured":
      return state.present ? "configured path" : "configured path missing";
  }
}
