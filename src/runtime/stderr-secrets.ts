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
 * its whole value, the userinfo and the password are all replaced.
 *
 * Values shorter than MIN_SECRET_CHARS are left alone: replacing `1` or `dummy` everywhere would
 * garble the log without protecting anything.
 */
import type { AgentLaunch } from "../config/config.ts";

export const MIN_SECRET_CHARS = 8;

const CREDENTIAL_WORD = /^(?:API_?KEY|PAT|PASS|PASSWD|CREDENTIALS?|AUTH\w*|COOKIES?|PRIVATE|DSN|\w*(?:KEY|TOKEN|SECRET|PASSWORD))$/;
const URL_USERINFO = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]+)@/i;

export function isCredentialName(name: string): boolean {
  return name.toUpperCase().split("_").some((word) => CREDENTIAL_WORD.test(word));
}

/** The secret parts of an environment value: all of a credential's; a URL's userinfo and password. */
function secretParts(name: string, value: string): string[] {
  const parts = isCredentialName(name) ? [value] : [];
  const userinfo = URL_USERINFO.exec(value)?.[1];
  if (userinfo !== undefined) {
    parts.push(value, userinfo);
    const colon = userinfo.indexOf(":");
    if (colon >= 0) {
      parts.push(userinfo.slice(colon + 1));
      // As written, and as a URL parser would give it back.
      try {
        parts.push(decodeURIComponent(userinfo.slice(colon + 1)));
      } catch {
        // not percent-encoded: the raw password is already listed
      }
    }
  }
  return parts;
}

/**
 * The secrets of the daemon's token, the agent's environment (by name, above) and its configured
 * model endpoint, whatever the names involved: the key resolved from `apiKeyEnv` (which may name a
 * variable such as `GEMINI_PROD`) and the userinfo of the endpoint's base URL, which the child gets
 * in its own variables.
 */
export function stderrSecrets(agent: Pick<AgentLaunch, "baseEnv" | "modelEndpoint">, token: string | null): string[] {
  const values = new Set<string>();
  if (token !== null) values.add(token);
  for (const [name, value] of Object.entries(agent.baseEnv)) if (value !== undefined) for (const part of secretParts(name, value)) values.add(part);
  const endpoint = agent.modelEndpoint;
  if (endpoint !== null) {
    if (endpoint.apiKey !== null) values.add(endpoint.apiKey);
    for (const part of secretParts("", endpoint.baseUrl)) values.add(part);
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...values].filter((v) => v.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}
