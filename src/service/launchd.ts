/**
 * `svc service` on macOS: the agent's plist under `~/Library/LaunchAgents/`, driven with
 * `launchctl` in the user's GUI domain (`gui/<uid>`). Whether that domain can be reached is asked
 * first (`launchctl print gui/<uid>`: there is none over a plain ssh login); without it the plist
 * is still written or removed, and the commands to finish by hand are printed (exit 3).
 */
import { unlinkSync } from "node:fs";
import { LAUNCHD_LABEL, type ServiceConfig } from "../config/service-config.ts";
import { logFileOf, PLIST_HEADER, plistText, readPlist } from "./launchd-plist.ts";
import { runManager, type ManagerResult } from "./manager.ts";
import type { Located, Say, ServiceManager } from "./service-manager.ts";

const launchctl = (config: ServiceConfig, ...args: string[]): ManagerResult => runManager(["launchctl", ...args], config.managerEnv);
const domainOf = (config: ServiceConfig) => `gui/${config.uid}`;
const targetOf = (config: ServiceConfig) => `${domainOf(config)}/${LAUNCHD_LABEL}`;

function unreachable(config: ServiceConfig): string | null {
  const probe = launchctl(config, "print", domainOf(config));
  return probe.code === 0 ? null : probe.problem;
}

export const launchd: ServiceManager = {
  name: "launchd",
  text: plistText,
  read: readPlist,
  logs: (config) => logFileOf(config.dataDir),

  install(config: ServiceConfig, reinstall: boolean, say: Say): number {
    const why = unreachable(config);
    if (why !== null) {
      say.err(`launchctl cannot reach ${domainOf(config)} (${why}); the agent is written, load it from a login session with:`);
      say.out(`  launchctl bootstrap ${domainOf(config)} ${config.unitPath}`);
      return 3;
    }
    // A loaded agent keeps its old definition: unload it first (an error here only means it was not loaded).
    launchctl(config, "bootout", targetOf(config));
    launchctl(config, "enable", targetOf(config));
    const loaded = launchctl(config, "bootstrap", domainOf(config), config.unitPath);
    if (loaded.code !== 0) {
      say.err(loaded.problem);
      return 1;
    }
    say.out(`${reinstall ? "reloaded" : "loaded and started"} ${LAUNCHD_LABEL}`);
    return 0;
  },

  uninstall(config: ServiceConfig, say: Say): number {
    const why = unreachable(config);
    if (why === null) {
      // Stops the daemon and unloads the agent (an error here only means it was not loaded).
      launchctl(config, "bootout", targetOf(config));
      unlinkSync(config.unitPath);
      say.out(`stopped, unloaded and removed ${config.unitPath}`);
      return 0;
    }
    unlinkSync(config.unitPath);
    say.err(`launchctl cannot reach ${domainOf(config)} (${why}); removed ${config.unitPath}. If it is still loaded, unload it from a login session with:`);
    say.out(`  launchctl bootout ${targetOf(config)}`);
    return 3;
  },

  owns: (text) => text.split("\n").some((line) => line.startsWith(PLIST_HEADER)),

  locate(config: ServiceConfig): Located {
    const why = unreachable(config);
    if (why !== null) return { kind: "unknown", why: `launchctl cannot reach ${domainOf(config)}: ${why}` };
    const printed = launchctl(config, "print", targetOf(config));
    if (printed.code !== 0) return { kind: "absent" };
    const path = /^\s*path = (.+)$/m.exec(printed.stdout)?.[1]?.trim();
    return path === undefined ? { kind: "unknown", why: `launchd has ${LAUNCHD_LABEL} loaded from no file it names` } : { kind: "loaded", path };
  },

  state(config: ServiceConfig) {
    const why = unreachable(config);
    if (why !== null) return { text: `unknown (launchctl cannot reach ${domainOf(config)}: ${why})`, active: false };
    const printed = launchctl(config, "print", targetOf(config));
    if (printed.code !== 0) return { text: "not loaded", active: false };
    const state = /^\s*state = (\S+)/m.exec(printed.stdout)?.[1] ?? "loaded";
    return { text: state, active: state === "running" };
  },
};
