/**
 * The secret values an agent's stderr (and the log, and status payloads) is scrubbed of: the
 * daemon's token, the values of the daemon's environment that are credentials and the agent's
 * model endpoint credentials (stderrSecrets). Children inherit
 * most of that environment, and an agent that fails to start often prints the key it was given
 * ("invalid key sk-…").
 *
 * A variable is a credential when a word of its name (split at `_`) says so: `KEY`, `APIKEY`,
 * `TOKEN`, `PAT`, `SECRET`, `PASSWORD`/`PASSWD`/`PASS`, `CREDENTIAL(S)`, `AUTH…` (`AUTH`,
 * `AUTHORIZATION`, `AUTHTOKEN`), `COOKIE`, `PRIVATE`, `DSN`; or a word merely ends in `KEY`, `TOKEN`,
 * `SECRET` or `PASSWORD` (`NPMTOKEN`, `OPENAI_APIKEY`). So `AWS_SECRET_ACCESS_KEY`, `GH_PAT`,
 * `DB_PASSWD` are, while `PATH`, `PWD` (the working directory) and `KEYBOARD_LAYOUT` are not.
 * Any variable whose value is a URL with userinfo (`DATABASE_URL=postgres://u:pw@h/db`) is one too:
 * its whole value, the userinfo and the password (as written, decoded, and percent-encoded as in the
 * parsed URL's `href`) are all replaced. The model endpoint's base URL also has its query values
 * replaced, since a key often rides there (`?key=…`).
 *
 * Values shorter than MIN_SECRET_CHARS are left alone: replacing `1` or `dummy` everywhere would
 * garble the log without protecting anything.
 */
import type { AgentLaunch } from "../config/config.ts";

export const MIN_SECRET_CHARS = 8;

// A word of the name that says credential: it starts at the name's start or after a `_` and ends
// before a `_` or at the end. One expression over the whole name, not a test per word: the daemon
// judges its whole environment at boot, and a callback per word made that hot enough for JSC's
// optimizing compiler, whose code then stayed resident in the idle daemon. (A match that spans
// words, `\w*` taking a `_`, ends in a word that matches alone: the same names match.)
const CREDENTIAL_WORD = /(?:^|_)(?:API_?KEY|PAT|PASS|PASSWD|CREDENTIALS?|AUTH\w*|COOKIES?|PRIVATE|DSN|\w*(?:KEY|TOKEN|SECRET|PASSWORD))(?=_|$)/;
// Userinfo runs to the LAST `@` before the host, as a URL parser reads it: a password may hold `@`.
const URL_USERINFO = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\\\s]+)@/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_WORD.test(name.toUpperCase());
}

/** The secret parts of an environment value: all of a credential's; a URL's userinfo and password. */
function secretParts(name: string, value: string): string[] {
  const parts = isCredentialName(name) ? [value] : [];
  const userinfo = URL_USERINFO.exec(value)?.[1];
  if (userinfo !== undefined) {
    parts.push(value, userinfo);
    const colon = userinfo.indexOf(":");
    if (colon >= 0) parts.push(...spellings(userinfo.slice(colon + 1)));
    // As a URL parser gives it back: the password percent-encoded (`p@ss` is `p%40ss`), in `href` too.
    const url = parseUrl(value);
    if (url !== null) parts.push(url.href, ...spellings(url.password));
  }
  return parts;
}

/** A value as written and percent-decoded. */
function spellings(raw: string): string[] {
  try {
    return [raw, decodeURIComponent(raw)];
  } catch {
    return [raw]; // not valid percent-encoding: only the raw form can appear
  }
}

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** The model endpoint's base URL: its userinfo as above, and every query value (`?key=…` carries keys). */
function endpointUrlParts(baseUrl: string): string[] {
  const parts = secretParts("", baseUrl);
  const url = parseUrl(baseUrl);
  if (url === null) return parts;
  parts.push(url.href);
  // As written, percent-decoded, and as a form decoder reads it (`+` is a space).
  for (const pair of url.search.slice(1).split("&")) if (pair.includes("=")) parts.push(...spellings(pair.slice(pair.indexOf("=") + 1)));
  for (const value of url.searchParams.values()) parts.push(value);
  return parts;
}

/**
 * The secrets of the daemon's token, the agent's environment (by name, above) and its configured
 * model endpoint, whatever the names involved: the key resolved from `apiKeyEnv` (which may name a
 * variable such as `GEMINI_PROD`) and the userinfo and query values of the endpoint's base URL,
 * which the child gets in its own variables.
 */
export function stderrSecrets(agent: Pick<AgentLaunch, "baseEnv" | "modelEndpoint">, token: string | null): string[] {
  const values = new Set<string>();
  if (token !== null) values.add(token);
  for (const [name, value] of Object.entries(agent.baseEnv)) if (value !== undefined) for (const part of secretParts(name, value)) values.add(part);
  const endpoint = agent.modelEndpoint;
  if (endpoint !== null) {
    if (endpoint.apiKey !== null) values.add(endpoint.apiKey);
    for (const part of endpointUrlParts(endpoint.baseUrl)) values.add(part);
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...values].filter((v) => v.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}
