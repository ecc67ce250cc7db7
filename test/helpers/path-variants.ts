/**
 * Other spellings of a route path, as a careless or hostile client might send them: trailing and
 * doubled slashes, dot segments (plain and percent-encoded), encoded slashes and letters, case,
 * backslashes, `;`, `#` and query suffixes. They are raw request targets: send them with
 * `rawRequest` (`fetch` would normalise most of them away before they left the process).
 *
 * Some normalise to the route itself on the server (`/file/./write`), most name no route at all.
 * Tests use them to show that a spelling which reaches a handler has met the same gates as the
 * canonical one.
 */

const hex = (c: string) => c.charCodeAt(0).toString(16);

export function spellingsOf(path: string): string[] {
  const segments = path.split("/").slice(1);
  const last = segments.at(-1)!;
  const out = new Set<string>();
  const add = (...targets: string[]) => targets.forEach((t) => out.add(t));

  // Suffixes.
  for (const tail of ["/", "//", "/.", "/./", "/%2e", "/%2E/", "/x/..", "/x/%2e%2e", `/../${last}/`, "\\", "/%2F", "%2f", ".", "%20", "%00", ";x", "#", "#x", "/#", "?", "?x=1", "/?x=1", "/.?x=1", "//?x=1", "%3F", "%23"])
    add(path + tail);
  // Prefixes.
  for (const head of ["/", "/.", "/x/..", "/%2e%2e", "/%2e", "/\\"]) add(head + path);
  // Each separator between segments.
  for (let i = 1; i < segments.length; i++) {
    const before = "/" + segments.slice(0, i).join("/");
    const after = segments.slice(i).join("/");
    for (const sep of ["//", "/./", "/%2e/", "/x/../", "%2F", "%2f", "\\", "/;x/"]) add(before + sep + after);
  }
  // Case and encoded letters.
  add(path.toUpperCase(), "/" + path.charAt(1).toUpperCase() + path.slice(2));
  const at = path.lastIndexOf("/") + 1;
  add(path.slice(0, at) + "%" + hex(path.charAt(at)) + path.slice(at + 1), path.slice(0, at) + "%" + hex(path.charAt(at)).toUpperCase() + path.slice(at + 1));
  out.delete(path);
  return [...out];
}

/** Route templates from the OpenAPI document (`/session/{id}`) with each parameter filled in. */
export function fillTemplate(template: string, value = "x"): string {
  return template.replace(/\{[^}]+\}/g, value);
}
