/**
 * The names a daemon answers to as itself: the loopback aliases, the container-host alias and the
 * bound host, with the daemon's port (port-less too on 80/443). Used by the Host allowlist
 * (DNS-rebinding defence) and by the self-origin strip.
 */
import { urlHost } from "../../config/net.ts";

const ALIASES = ["localhost", "127.0.0.1", "[::1]", "host.docker.internal"];
const WILDCARDS = new Set(["0.0.0.0", "[::]"]);

function selfHosts(boundHost: string): string[] {
  const hosts = new Set([...ALIASES, urlHost(boundHost.toLowerCase())]);
  for (const w of WILDCARDS) hosts.delete(w);
  return [...hosts];
}

/** Lowercased `Host` header values accepted on a loopback bind. */
export function selfAuthorities(boundHost: string, port: number): Set<string> {
  const out = new Set<string>();
  for (const host of selfHosts(boundHost)) {
    out.add(`${host}:${port}`);
    if (port === 80 || port === 443) out.add(host);
  }
  return out;
}

/** Lowercased `Origin` values of pages served by this daemon itself. */
export function selfOrigins(boundHost: string, port: number): Set<string> {
  const out = new Set<string>();
  for (const host of selfHosts(boundHost)) {
    out.add(`http://${host}:${port}`);
    out.add(`https://${host}:${port}`);
    // Browsers leave the scheme's default port out of Origin.
    if (port === 80) out.add(`http://${host}`);
    if (port === 443) out.add(`https://${host}`);
  }
  return out;
}
