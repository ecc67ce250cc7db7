/**
 * `--allow-origin` patterns: the literal `*`, or a canonical `<scheme>://<host>[:<port>]` origin that
 * survives a round trip through URL origin parsing (no path, query, userinfo, trailing slash or
 * default port). Matching is case-insensitive, so patterns are kept lowercased.
 */
import { InvalidAllowOriginPatternError } from "./boot-error.ts";
import { isLoopbackHost } from "./net.ts";

export interface OriginPolicy {
  /** `*` was given: any origin except `null` is admitted. */
  readonly any: boolean;
  /** Lowercased canonical origins. */
  readonly origins: ReadonlySet<string>;
}

export function parseOriginPatterns(patterns: readonly string[]): OriginPolicy {
  const origins = new Set<string>();
  let any = false;
  for (const pattern of patterns) {
    if (pattern === "*") {
      any = true;
      continue;
    }
    let url: URL;
    try {
      url = new URL(pattern);
    } catch {
      throw new InvalidAllowOriginPatternError(pattern, "is not a URL origin");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new InvalidAllowOriginPatternError(pattern, "must use http or https");
    if (url.origin !== pattern.toLowerCase())
      throw new InvalidAllowOriginPatternError(pattern, `is not a canonical origin (did you mean ${JSON.stringify(url.origin)}?)`);
    origins.add(url.origin);
  }
  return { any, origins };
}

/** True when every pattern names a loopback origin (what a tokenless daemon may admit). */
export function onlyLoopbackOrigins(policy: OriginPolicy): boolean {
  if (policy.any) return false;
  for (const origin of policy.origins) if (!isLoopbackHost(new URL(origin).hostname)) return false;
  return true;
}
