/**
 * The scrub list: the environment variable names the built-in agent keeps from the commands it runs
 * (and from its MCP stdio servers), and that the daemon keeps out of the built-in agent's own
 * environment (`agent-keys.ts`). One place, so both sides agree.
 *
 * A name is a secret when it ends in one of SECRET_SUFFIXES (case-insensitive, the `_` included, so
 * `KEYBOARD` or `BYPASS` do not count) or is one of SECRET_NAMES. That covers:
 * - model keys: `OPENAI_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `HF_TOKEN`…;
 * - AWS: `AWS_SECRET_ACCESS_KEY`, `AWS_ACCESS_KEY_ID`, `AWS_SESSION_TOKEN`;
 * - GCP: `GOOGLE_APPLICATION_CREDENTIALS`, `GOOGLE_API_KEY`, `CLOUDSDK_AUTH_ACCESS_TOKEN`;
 * - Azure: `AZURE_CLIENT_SECRET`, `AZURE_CLIENT_CERTIFICATE_PASSWORD`, `AZURE_STORAGE_KEY`,
 *   `AZURE_STORAGE_CONNECTION_STRING`, `AZURE_STORAGE_SAS_TOKEN`;
 * - GitHub and npm: `GH_TOKEN`, `GITHUB_TOKEN`, `NPM_TOKEN`, `NODE_AUTH_TOKEN`, `npm_config__auth`;
 * - GitHub personal tokens by their other usual names (`GITHUB_PAT`, `GH_PAT`);
 * - Rails and other frameworks' signing secrets (`SECRET_KEY_BASE`, `SECRET_KEY`);
 * - DSNs and webhook addresses, which carry their credential (`SENTRY_DSN`, `SLACK_WEBHOOK_URL`);
 * - the bare names `PASSWORD`, `TOKEN`, `SECRET`, `API_KEY`, `APIKEY`;
 * - any `*_PASSWORD`, `*_PASSWD`, `*_PASS`, `*_CREDENTIALS`, `*_KEY`, `*_SECRET`, `*_TOKEN`.
 *
 * Decided: `*_PASS` counts (`SMTP_PASS`, `DB_PASS` are common in `.env` files; a false positive only
 * hides a variable from a command), and so does any `*_KEY` (`STRIPE_KEY`, `SIGNING_KEY`), at the
 * cost of hiding the odd non-secret one such as `GPG_KEY` (a fingerprint). `*_PWD` does not: `PWD`
 * and `OLDPWD` are working directories; `MYSQL_PWD` is named instead. Not covered, because the name
 * does not tell: a secret inside another variable's value (`DATABASE_URL=postgres://u:pw@h/db`).
 *
 * The daemon's log redaction (`runtime/stderr-secrets.ts`) matches more widely (any word `AUTH…`,
 * `PRIVATE`, `DSN`): a false positive there blanks a log value, while one here would take
 * `SSH_AUTH_SOCK` away from `git` in a command.
 */

/** Name endings that mark a secret (compared upper-cased). */
export const SECRET_SUFFIXES: readonly string[] = [
  "_KEY",
  "_KEY_ID",
  "_APIKEY",
  "_TOKEN",
  "_SECRET",
  "_PASSWORD",
  "_PASSWD",
  "_PASS",
  "_CREDENTIAL",
  "_CREDENTIALS",
  "_CONNECTION_STRING",
  "_PAT",
  "_KEY_BASE",
  "_DSN",
  "_WEBHOOK_URL",
];

/** Secrets whose names have none of those endings (compared upper-cased). */
export const SECRET_NAMES: ReadonlySet<string> = new Set([
  "PGPASSWORD",
  "MYSQL_PWD",
  "NPM_CONFIG__AUTH",
  "NPM_CONFIG__AUTHTOKEN",
  "DOCKER_AUTH_CONFIG",
  "PASSWORD",
  "TOKEN",
  "SECRET",
  "SECRET_KEY",
  "API_KEY",
  "APIKEY",
]);

/**
 * SECRET_SUFFIXES as one expression: the daemon judges every variable of its environment several
 * times at boot, and a callback per suffix per name made that loop hot enough for JSC's optimizing
 * compiler, whose code then stayed resident in the idle daemon (~1.5 MB).
 */
const SECRET_SUFFIX = new RegExp(`(?:${SECRET_SUFFIXES.map((suffix) => suffix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`);

export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAMES.has(upper) || SECRET_SUFFIX.test(upper);
}
