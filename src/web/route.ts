/**
 * Hash routing: `#/` (sessions), `#/session/<id>`, `#/workspace`, `#/files[/<path>]`. The server
 * only serves `/`; the route lives in the fragment.
 */
import { signal } from "@preact/signals";

export type Route = { view: "home" } | { view: "session"; id: string } | { view: "workspace" } | { view: "files"; path: string | undefined };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, "");
  const [head, ...rest] = path.split("/");
  const tail = rest.length ? decodeURIComponent(rest.join("/")) : undefined;
  if (head === "session" && tail) return { view: "session", id: tail };
  if (head === "workspace") return { view: "workspace" };
  if (head === "files") return { view: "files", path: tail };
  return { view: "home" };
}

export const route = signal<Route>(parseRoute(location.hash));
addEventListener("hashchange", () => (route.value = parseRoute(location.hash)));

export function go(hash: string): void {
  if (location.hash === hash) route.value = parseRoute(hash);
  else location.hash = hash;
}

export const sessionHash = (id: string) => `#/session/${encodeURIComponent(id)}`;
