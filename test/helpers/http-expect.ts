/** Assertions shared by the HTTP security tests, written from the spec (not from src constants). */
import { expect } from "bun:test";

type HeaderSource = Headers | ReadonlyMap<string, string>;

const get = (headers: HeaderSource, name: string) => (headers instanceof Headers ? headers.get(name) : (headers.get(name.toLowerCase()) ?? null));
function names(headers: HeaderSource): string[] {
  const out: string[] = [];
  headers.forEach((_value, name) => out.push(name.toLowerCase()));
  return out;
}

/** Names of the `Access-Control-*` headers present. */
export function accessControlHeaders(headers: HeaderSource): string[] {
  return names(headers).filter((n) => n.startsWith("access-control-"));
}

const list = (value: string | null) => (value ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);

/** The spec's header set for an admitted origin (Authentication §7), with the origin echoed verbatim. */
export function expectCorsHeaders(headers: HeaderSource, origin: string): void {
  expect(get(headers, "access-control-allow-origin")).toBe(origin);
  expect(list(get(headers, "vary"))).toContain("origin");
  expect(get(headers, "access-control-allow-methods")).toBe("GET, POST, PATCH, DELETE, OPTIONS");
  const allow = list(get(headers, "access-control-allow-headers"));
  for (const h of ["authorization", "content-type", "x-svc-client-id", "last-event-id"]) expect(allow).toContain(h);
  expect(get(headers, "access-control-max-age")).toBe("86400");
  expect(list(get(headers, "access-control-expose-headers"))).toContain("retry-after");
  expect(get(headers, "access-control-allow-credentials")).toBeNull();
}

/** An unmatched origin: 403, the CORS error body, `Vary: Origin`, and no `Access-Control-*` header at all. */
export async function expectCorsDenied(res: Response): Promise<void> {
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ error: "Request denied by CORS policy" });
  expect(list(res.headers.get("vary"))).toContain("origin");
  expect(accessControlHeaders(res.headers)).toEqual([]);
}

/** The uniform 401: `{error: "Unauthorized"}`, JSON, no `WWW-Authenticate`. */
export async function expectUnauthorized(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("www-authenticate")).toBeNull();
  expect(await res.json()).toEqual({ error: "Unauthorized" });
}

export async function expectInvalidHost(res: Response): Promise<void> {
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ error: "Invalid Host header" });
}
