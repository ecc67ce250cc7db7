/**
 * The npm registry svc installs from (`svc agents install`, registry extensions): npm's default
 * unless `SVC_NPM_REGISTRY` (or the agents command's `--registry`) names another. The user's npm
 * configuration (`.npmrc`, which a workspace could hold) is never read.
 */
import { BootError } from "./boot-error.ts";

export const DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org/";

/** `raw` as an http(s) registry URL (its href), or a BootError naming `from`. */
export function parseRegistry(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BootError(`${from}: ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new BootError(`${from}: must be an http(s) URL`);
  return url.href;
}

/** The registry `SVC_NPM_REGISTRY` names, else npm's. */
export const registryFromEnv = (env: Readonly<Record<string, string | undefined>>): string =>
  env.SVC_NPM_REGISTRY ? parseRegistry(env.SVC_NPM_REGISTRY, "SVC_NPM_REGISTRY") : DEFAULT_NPM_REGISTRY;
