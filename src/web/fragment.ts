/**
 * Reading the URL fragment: the route (`#/`, `#/session/<id>`, `#/workspace`, `#/files[/<path>]`,
 * `#/settings[/<section>]`) and the one-time `#token=<t>`. Pure: no DOM. A fragment comes from
 * anyone who can hand the user a link (an agent's markdown link included), so nothing here throws
 * on it: a malformed percent-escape routes home, and a token is taken as it stands.
 */
export type Route = { view: "home" } | { view: "session"; id: string } | { view: "workspace" } | { view: "files"; path: string | undefined } | { view: "settings"; section: string | undefined };

/** `decodeURIComponent`, or undefined for a malformed escape (`%`, `%E0%A4%A`). */
export function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, "");
  const [head, ...rest] = path.split("/");
  const tail = rest.length ? safeDecode(rest.join("/")) : undefined;
  if (rest.length && tail === undefined) return { view: "home" };
  if (head === "session" && tail) return { view: "session", id: tail };
  if (head === "workspace") return { view: "workspace" };
  if (head === "files") return { view: "files", path: tail };
  if (head === "settings") return { view: "settings", section: tail };
  return { view: "home" };
}

/**
 * The `token=` member of a fragment: `present` when the fragment has one (it must then leave the
 * address bar, whatever its value). The value ends at the next `&`, so a token holding `&` or `%`
 * must be URL-encoded in the link (`encodeURIComponent`); a value that is not a valid escape
 * sequence is taken literally.
 */
export function tokenFromFragment(hash: string): { present: boolean; token: string | undefined } {
  const match = /(?:^#|[#&])token=([^&]*)/.exec(hash);
  if (!match) return { present: false, token: undefined };
  const raw = match[1] ?? "";
  return { present: true, token: (safeDecode(raw) ?? raw) || undefined };
}
