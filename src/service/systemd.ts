/**
 * `svc service` on Linux: the unit under `$XDG_CONFIG_HOME/systemd/user/`, driven with
 * `systemctl --user`. Whether the user manager can be reached is asked first (`show-environment`,
 * which needs nothing but the bus): without one (a container, a session without a user bus) the
 * unit is still written or removed, and the commands to finish by hand are printed (exit 3).
 */
import { lstatSync, readlinkSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { SYSTEMD_UNIT, type ServiceConfig } from "../config/service-config.ts";
import { runManager, type ManagerResult } from "./manager.ts";
import { manualInstall, readUnit, UNIT_HEADER, unitText } from "./systemd-unit.ts";
import type { Located, Say, ServiceManager } from "./service-manager.ts";

const ctl = (config: ServiceConfig, ...args: string[]): ManagerResult => runManager(["systemctl", "--user", ...args], config.managerEnv);

/** Null when the user manager answers, else why not. */
function unreachable(config: ServiceConfig): string | null {
  const probe = ctl(config, "show-environment");
  return probe.code === 0 ? null : probe.problem;
}

/** The `default.target.wants` link `enable` made, removed by hand when the manager cannot do it. */
function removeWantsLink(config: ServiceConfig): void {
  const link = join(dirname(config.unitPath), "default.target.wants", SYSTEMD_UNIT);
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && readlinkSync(link) === config.unitPath) unlinkSync(link);
}

export const systemd: ServiceManager = {
  name: "systemd user manager",
  text: unitText,
  read: readUnit,
  logs: () => "journalctl --user -u svc",

  install(config: ServiceConfig, reinstall: boolean, say: Say): number {
    const why = unreachable(config);
    if (why !== null) {
      say.err(`systemctl --user cannot be reached (${why}); the unit is written, start it with:`);
      for (const command of manualInstall()) say.out(`  ${command}`);
      return 3;
    }
    const steps = [["daemon-reload"], ["enable", "--now", SYSTEMD_UNIT], ...(reinstall ? [["restart", SYSTEMD_UNIT]] : [])];
    for (const step of steps) {
      const result = ctl(config, ...step);
      if (result.code !== 0) {
        say.err(result.problem);
        return 1;
      }
    }
    say.out(`${reinstall ? "restarted" : "enabled and started"} ${SYSTEMD_UNIT}`);
    return 0;
  },

  uninstall(config: ServiceConfig, say: Say): number {
    const why = unreachable(config);
    if (why === null) {
      const disabled = ctl(config, "disable", "--now", SYSTEMD_UNIT);
      if (disabled.code !== 0) {
        say.err(disabled.problem);
        return 1;
      }
      unlinkSync(config.unitPath);
      ctl(config, "daemon-reload");
      ctl(config, "reset-failed", SYSTEMD_UNIT);
      say.out(`stopped, disabled and removed ${config.unitPath}`);
      return 0;
    }
    removeWantsLink(config);
    unlinkSync(config.unitPath);
    say.err(`systemctl --user cannot be reached (${why}); removed ${config.unitPath}. If a user manager still runs it, stop it with:`);
    say.out(`  systemctl --user stop ${SYSTEMD_UNIT}`);
    say.out("  systemctl --user daemon-reload");
    return 3;
  },

  owns: (text) => text.startsWith(UNIT_HEADER),

  locate(config: ServiceConfig): Located {
    const why = unreachable(config);
    if (why !== null) return { kind: "unknown", why: `systemctl --user cannot be reached: ${why}` };
    const shown = ctl(config, "show", "-p", "FragmentPath,LoadState", SYSTEMD_UNIT);
    if (shown.code !== 0) return { kind: "unknown", why: shown.problem };
    const path = /^FragmentPath=(.*)$/m.exec(shown.stdout)?.[1] ?? "";
    const load = /^LoadState=(.*)$/m.exec(shown.stdout)?.[1] ?? "";
    if (path !== "") return { kind: "loaded", path };
    if (load === "not-found") return { kind: "absent" };
    if (load === "") return { kind: "unknown", why: `systemctl --user show named no load state for ${SYSTEMD_UNIT}` };
    return { kind: "unknown", why: `systemd has ${SYSTEMD_UNIT} in load state ${load} with no unit file` };
  },

  state(config: ServiceConfig) {
    const why = unreachable(config);
    if (why !== null) return { text: `unknown (systemctl --user cannot be reached: ${why})`, active: false };
    const active = ctl(config, "is-active", SYSTEMD_UNIT).stdout.trim() || "unknown";
    const enabled = ctl(config, "is-enabled", SYSTEMD_UNIT).stdout.trim() || "unknown";
    return { text: `${active} (${enabled})`, active: active === "active" };
  },
};
