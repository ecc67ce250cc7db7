/**
 * Hash routing: `#/` (sessions), `#/session/<id>`, `#/workspace`, `#/files[/<path>]` (parsed by
 * fragment.ts). The server only serves `/`; the route lives in the fragment.
 */
import { signal } from "@preact/signals";
import { parseRoute, type Route } from "./fragment.ts";

export const route = signal<Route>(parseRoute(location.hash));
addEventListener("hashchange", () => (route.value = parseRoute(location.hash)));

export function go(hash: string): void {
  if (location.hash === hash) route.value = parseRoute(hash);
  else location.hash = hash;
}

export const sessionHash = (id: string) => `#/session/${encodeURIComponent(id)}`;
