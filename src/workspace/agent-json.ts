/**
 * Arbitrary JSON from an agent (a status cell's `detail`, a session view, a control's answer) made
 * fit to leave the daemon. Three rules, applied by `clean`:
 *
 * 1. Bounds. An answer deeper than MAX_ANSWER_DEPTH, with more than MAX_ANSWER_NODES values or more
 *    than MAX_ANSWER_CHARS characters of strings and member names, is refused whole with an
 *    `AgentAnswerError` (callers report it as a protocol error: a `protocol_error` cell, a 502).
 *    The check walks iteratively and stops at the first bound crossed, so no answer can exhaust the
 *    stack or the time of the walk that follows.
 * 2. Member names. A member whose name marks it as secret-bearing (credentials, headers, cookies,
 *    keys, addresses, paths, commands and their arguments, configuration, bodies, hooks, names of
 *    environment variables) keeps only its numbers, booleans and nulls, at any depth: token counts
 *    (`totalTokens`, `tokens: {prompt: 10}`) are no secret, and a number never is. One left with
 *    nothing is dropped.
 * 3. Strings (`scrubText`), wherever they are: the daemon's known secret values, Authorization
 *    header values (Bearer/Basic), PEM blocks, credential arguments (`--api-key=…`, `token=…`),
 *    the userinfo of URLs and paths under a home directory are replaced, and secret environment
 *    variable names but the spec's whitelist hidden.
 */
import { redactSecrets } from "../logging/redact.ts";
import { SECRET_NAMES } from "./env-cells.ts";

/** Nesting levels an answer may have; deeper is refused (real agents' views nest about 6). */
export const MAX_ANSWER_DEPTH = 32;
/** Values (objects, arrays, scalars) an answer may hold; more is refused (qwen's full tool list is a few hundred). */
export const MAX_ANSWER_NODES = 50_000;
/** Characters of strings and member names an answer may hold; more is refused. */
export const MAX_ANSWER_CHARS = 4 * 1024 * 1024;

/** An agent answer the daemon will not pass on: beyond a bound, or not of the shape asked for. */
export class AgentAnswerError extends Error {
  override readonly name = "AgentAnswerError";
}

type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Throws AgentAnswerError when `value` is beyond the bounds above. */
export function checkBounds(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  let nodes = 0;
  let chars = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++nodes > MAX_ANSWER_NODES) throw new AgentAnswerError(`the agent's answer holds more than ${MAX_ANSWER_NODES} values`);
    if (depth > MAX_ANSWER_DEPTH) throw new AgentAnswerError(`the agent's answer nests deeper than ${MAX_ANSWER_DEPTH} levels`);
    if (typeof v === "string") chars += v.length;
    else if (Array.isArray(v)) for (const item of v) stack.push([item, depth + 1]);
    else if (isObject(v))
      for (const [name, member] of Object.entries(v)) {
        chars += name.length;
        stack.push([member, depth + 1]);
      }
    if (chars > MAX_ANSWER_CHARS) throw new AgentAnswerError(`the agent's answer holds more than ${MAX_ANSWER_CHARS} characters`);
  }
}

/** Words of a member name that mark it as secret-bearing (`privateKeyPem`, `api_base`, `GITHUB_TOKEN`). */
const SECRET_WORDS: ReadonlySet<string> = new Set(
  ("env environment header headers credential credentials token tokens secret secrets password passwords passwd pwd " +
    "authorization cookie cookies pem private key keys apikey oauth bearer dsn path paths url urls uri uris " +
    "location file files endpoint endpoints cmd command commands args argv config hook hooks body content var vars " +
    "variable variables audience signature").split(" "),
);
/** Words secret-bearing only as a name's last word: `auth`, `basicAuth`, but not `authType`. */
const SECRET_LAST_WORDS: ReadonlySet<string> = new Set(["auth"]);
/** Secret-bearing names that span words. */
const SECRET_JOINED = /serviceaccount|apibase|authprovidertype/;

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}

export function isSecretMember(name: string): boolean {
  const parts = words(name);
  return parts.some((w) => SECRET_WORDS.has(w)) || SECRET_LAST_WORDS.has(parts.at(-1)!) || SECRET_JOINED.test(parts.join(""));
}

/**
 * A secret environment variable's name in prose (`CORP_API_KEY`, `GITHUB_TOKEN`, …): the spec
 * keeps env key names out of status payloads. The spec's whitelisted names stay: `/workspace/env`
 * publishes them anyway, and a hint must be able to say which one to set.
 */
const SECRET_VARIABLE = /\b[A-Z][A-Z0-9_]*_(?:API_KEY|KEY|TOKEN|SECRET|PASSWORD)\b/g;
const PUBLIC_VARIABLES: ReadonlySet<string> = new Set(SECRET_NAMES);
const hideVariable = (name: string) => (PUBLIC_VARIABLES.has(name) ? name : "[variable redacted]");

const PEM_BLOCK = /-----BEGIN[\s\S]*?(?:-----END[^\n]*?-----|$)/g;
const AUTH_HEADER = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
/** `--api-key=v`, `--token v`, `-password=v`. */
const SECRET_FLAG = /(?<![\w-])(--?[\w-]*(?:key|token|secret|passw(?:or)?d|pwd|auth|credentials?)[\w-]*)(=|\s+)[^\s"'&]+/gi;
/** `api_key=v`, `?token=v` (a query string, an env assignment). */
const SECRET_ASSIGNMENT = /(?<![\w-])([\w-]*(?:key|token|secret|passw(?:or)?d|pwd|credentials?)s?)=[^\s"'&]+/gi;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]*@/gi;
const HOME_PATH = /(?<![\w.:/~-])(?:~|\/home|\/Users|\/root|[A-Za-z]:\\Users)[/\\][^\s"'<>]*/g;

/** `text` without the credentials, addresses' userinfo and home paths it may carry (rule 3). */
export function scrubText(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets)
    .replace(PEM_BLOCK, "[private key redacted]")
    .replace(AUTH_HEADER, "$1 [redacted]")
    .replace(SECRET_FLAG, "$1$2[redacted]")
    .replace(SECRET_ASSIGNMENT, "$1=[redacted]")
    .replace(URL_USERINFO, "$1")
    .replace(HOME_PATH, "[path redacted]")
    .replace(SECRET_VARIABLE, hideVariable);
}

/** What a secret-bearing member keeps: its numbers, booleans and nulls; undefined when none. */
function nonStrings(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  if (Array.isArray(value)) {
    const kept = value.map((v) => nonStrings(v, secrets)).filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (!isObject(value)) return undefined;
  const kept = Object.entries(value).flatMap(([name, member]) => {
    const v = name === "__proto__" ? undefined : nonStrings(member, secrets);
    return v === undefined ? [] : [[scrubText(name, secrets), v] as const];
  });
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** `value` cleaned by rules 2 and 3; the caller has checked its bounds. */
export function cleanWithin(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return scrubText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => cleanWithin(v, secrets));
  if (!isObject(value)) return value;
  const kept: [string, unknown][] = [];
  for (const [name, member] of Object.entries(value)) {
    if (name === "__proto__") continue;
    const v = isSecretMember(name) ? nonStrings(member, secrets) : cleanWithin(member, secrets);
    if (v !== undefined) kept.push([scrubText(name, secrets), v]);
  }
  // fromEntries defines own members, so no name (not even a scrubbed one) reaches a prototype.
  return Object.fromEntries(kept);
}

/**
 * A deep copy of `value` without secret-bearing members, its strings scrubbed. Throws
 * AgentAnswerError when `value` is beyond the answer bounds: report that as a protocol error.
 */
export function clean(value: unknown, secrets: readonly string[]): unknown {
  checkBounds(value);
  return cleanWithin(value, secrets);
}
