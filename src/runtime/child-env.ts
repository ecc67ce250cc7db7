/**
 * The environment an agent child starts with: the daemon's own, minus what the child must never
 * see (the daemon's bearer token and other daemon-private variables), plus the profile's additions.
 * A family marker the daemon inherited (it runs under another daemon's agent) is dropped too: the
 * child gets this daemon's own (`orphan-reaper.ts`).
 */
import { FAMILY_MARKER_VAR } from "./orphan-reaper.ts";

const DENIED = new Set(["SVC_SERVER_TOKEN", "SVC_CLI_ENTRY", "SVC_CLI_ARGS", FAMILY_MARKER_VAR]);
/** Runtime option variables meant for the daemon (inspectors, preloads) must not leak into agents. */
const DENIED_PREFIXES = ["BUN_INSPECT", "BUN_OPTIONS", "NODE_OPTIONS"];

export function childEnv(base: Readonly<Record<string, string | undefined>>, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || DENIED.has(name) || DENIED_PREFIXES.some((p) => name.startsWith(p))) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
