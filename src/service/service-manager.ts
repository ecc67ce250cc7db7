/** What `svc service` needs of a service manager (systemd.ts, launchd.ts): its unit's text, and install, uninstall and state through its tool. */
import type { ServiceConfig } from "../config/service-config.ts";
import type { UnitSpec } from "./systemd-unit.ts";

/** Where the command's lines go: `out` stdout, `err` stderr. */
export interface Say {
  out(line: string): void;
  err(line: string): void;
}

/** The manager's answer about a unit file that is not where this environment puts it. */
export type Located = { readonly kind: "loaded"; readonly path: string } | { readonly kind: "absent" } | { readonly kind: "unknown"; readonly why: string };

export interface ServiceManager {
  readonly name: string;
  /** The unit file's text for `spec`. */
  text(spec: UnitSpec): string;
  /** What an installed unit file runs: the command line and the environment it sets. */
  read(text: string): { exec: string[]; env: Record<string, string> };
  /** Where the service's logs are read. */
  logs(config: ServiceConfig): string;
  /** After the unit file is written: load, enable and (re)start it; an exit code. */
  install(config: ServiceConfig, reinstall: boolean, say: Say): number;
  /** Stop, disable and remove the (existing) unit file; an exit code. */
  uninstall(config: ServiceConfig, say: Say): number;
  /** Whether a unit file's text is one svc wrote (its header line): svc overwrites or removes no other. */
  owns(text: string): boolean;
  /** Where the manager has the service loaded from, asked when the unit file is not at `config.unitPath`. */
  locate(config: ServiceConfig): Located;
  /** The manager's view of the service in a few words (`unknown (why)` when it cannot be asked), and whether it runs. */
  state(config: ServiceConfig): { readonly text: string; readonly active: boolean };
}
