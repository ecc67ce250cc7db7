/**
 * Whether this `svc serve` was started by svc's launchd agent: launchd names the job it starts in
 * XPC_SERVICE_NAME. launchd has no start limit, so such a daemon bounds its own restart loop
 * (`src/runtime/launchd-restarts.ts`); the data dir is where it keeps that count and its log.
 */
import { dataDirFor, type ConfigInputs } from "./config.ts";

/** The launchd label of svc's agent, also the plist's name. */
export const LAUNCHD_LABEL = "dev.svc.daemon";

/** The data dir of a daemon svc's launchd agent started, or null when launchd did not start this one. */
export function launchdStartDataDir(env: ConfigInputs["env"], platform: NodeJS.Platform): string | null {
  return env.XPC_SERVICE_NAME === LAUNCHD_LABEL ? dataDirFor(env, platform) : null;
}
