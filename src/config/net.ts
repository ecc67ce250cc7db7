/** Hostnames that mean "this machine only". 127.0.0.0/8 counts as loopback too. */
const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  return /^127(\.\d{1,3}){3}$/.test(h) && h.split(".").every((p) => Number(p) <= 255);
}

/** The host as it appears in a URL authority: IPv6 literals get brackets. */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
