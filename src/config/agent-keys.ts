/**
 * How the daemon hands the built-in agent (`svc --acp`) its model keys. Not in its environment:
 * the agent is the parent of every command it runs, and `/proc/<agent>/environ` would show the keys
 * to any command that may read it (`cat /proc/$PPID/environ`; root may, whatever the agent's
 * dumpability). Instead:
 *
 * - the daemon takes the key variables (`keyVariableNames`: every provider key the agent's
 *   configuration reads, ENV_PROVIDERS, and every `apiKeyEnv` of `model.providers` in the host
 *   settings) out of the child's environment, and with them every other name on the scrub list
 *   (`secret-names.ts`), which the agent has no use for (`splitAgentEnv`);
 * - it writes the keys as one JSON object `{"NAME": "value", …}` of at most MAX_AGENT_KEYS_BYTES
 *   (with the providers set up through the API, keys included, under PROVIDERS_MEMBER: `src/auth/`)
 *   to an extra descriptor the child inherits as fd AGENT_KEYS_FD (a socket whose far end the
 *   daemon closes once written), and sets AGENT_KEYS_FD_VAR so that the agent knows to read it;
 * - the agent reads that descriptor to its end once, at start, before it runs anything, and closes
 *   it (`readHandedKeys`).
 *
 * An agent started without AGENT_KEYS_FD_VAR (`svc --acp` run by hand or by another ACP client)
 * reads its keys from its environment as before. Third-party agents get their documented
 * variables in their environment: they read nothing else.
 */
import { closeSync, readSync } from "node:fs";
import { join } from "node:path";
import { ENV_PROVIDERS } from "./env-providers.ts";
import { isSecretName } from "./secret-names.ts";
import { readSettingsText } from "./settings-file.ts";

/** The descriptor the keys arrive on in the agent (the first after stdin, stdout and stderr). */
export const AGENT_KEYS_FD = 3;
/** Set (to AGENT_KEYS_FD) in the agent's environment when a key document waits there. */
export const AGENT_KEYS_FD_VAR = "SVC_AGENT_KEYS_FD";
/**
 * Largest key document, in bytes of JSON. Far above any real set of keys, and below a local
 * socket's send buffer, so the daemon's one write never waits; a larger set refuses the start.
 */
export const MAX_AGENT_KEYS_BYTES = 64 * 1024;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The key document's member that carries the providers set up through the API (not a variable name). */
export const PROVIDERS_MEMBER = "@providers";

/** A model provider set up through the API (`POST /workspace/auth/provider`), as the agent receives it. */
export interface HandedProvider {
  readonly id: string;
  readonly kind: "openai-compatible" | "anthropic" | "google";
  readonly baseUrl: string;
  readonly models: readonly string[];
  readonly apiKey: string;
}

/** What arrives on the key descriptor: key variables, and the providers set up through the API. */
export interface HandedKeys {
  readonly keys: Record<string, string>;
  readonly providers: readonly HandedProvider[];
}

const HANDED_KINDS: readonly string[] = ["openai-compatible", "anthropic", "google"];

/** The variables that hold the built-in agent's model keys, given the host settings document. Pure. */
export function keyVariableNames(hostSettings: Readonly<Record<string, unknown>>): Set<string> {
  const names = new Set<string>(ENV_PROVIDERS.map((p) => p.keyEnv));
  const model = hostSettings.model;
  const providers = model !== null && typeof model === "object" ? (model as Record<string, unknown>).providers : undefined;
  if (Array.isArray(providers))
    for (const p of providers) {
      const name = p !== null && typeof p === "object" ? (p as Record<string, unknown>).apiKeyEnv : undefined;
      if (typeof name === "string" && ENV_NAME.test(name)) names.add(name);
    }
  return names;
}

/**
 * `keyVariableNames` of `<dataDir>/settings.json` as it is now (the agent reads the same file as it
 * starts). A file that cannot be read or parsed adds nothing: the agent then ignores it as well.
 */
export function hostKeyVariableNames(dataDir: string): Set<string> {
  let doc: unknown = null;
  try {
    doc = JSON.parse(readSettingsText(join(dataDir, "settings.json")) ?? "null");
  } catch {
    // unreadable or not JSON: the agent warns about it and reads no providers from it
  }
  return keyVariableNames(doc !== null && typeof doc === "object" && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {});
}

/**
 * The built-in agent's environment split: `keys` (the set variables named in `keyNames`) for the
 * key document, `env` for its environment, without those and without the scrub list's names. Pure.
 */
export function splitAgentEnv(env: Readonly<Record<string, string>>, keyNames: ReadonlySet<string>): { env: Record<string, string>; keys: Record<string, string> } {
  const kept: Record<string, string> = {};
  const keys: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (keyNames.has(name)) keys[name] = value;
    else if (!isSecretName(name)) kept[name] = value;
  }
  return { env: kept, keys };
}

/** The key document too large to hand over (the start is refused). */
export class AgentKeysTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`the built-in agent's model keys take ${bytes} bytes, more than the ${MAX_AGENT_KEYS_BYTES} that can be handed to it`);
  }
}

/** The key document's bytes; throws AgentKeysTooLargeError past MAX_AGENT_KEYS_BYTES. Pure. */
export function encodeHandedKeys(keys: Readonly<Record<string, string>>, providers: readonly HandedProvider[] = []): Uint8Array {
  const doc = providers.length === 0 ? keys : { ...keys, [PROVIDERS_MEMBER]: providers };
  const bytes = new TextEncoder().encode(JSON.stringify(doc));
  if (bytes.length > MAX_AGENT_KEYS_BYTES) throw new AgentKeysTooLargeError(bytes.length);
  return bytes;
}

function handedProvider(raw: unknown): HandedProvider {
  const p = (raw ?? {}) as Record<string, unknown>;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((m) => typeof m === "string");
  if (typeof p.id !== "string" || typeof p.kind !== "string" || !HANDED_KINDS.includes(p.kind) || typeof p.baseUrl !== "string" || !strings(p.models) || typeof p.apiKey !== "string")
    throw new Error(`the key document's ${PROVIDERS_MEMBER} must list {id, kind, baseUrl, models, apiKey}`);
  return { id: p.id, kind: p.kind as HandedProvider["kind"], baseUrl: p.baseUrl, models: p.models, apiKey: p.apiKey };
}

/**
 * Parses a key document: a JSON object of variable names to strings, and optionally
 * PROVIDERS_MEMBER. Throws with what is wrong. Pure.
 */
export function decodeHandedKeys(bytes: Uint8Array): HandedKeys {
  if (bytes.length > MAX_AGENT_KEYS_BYTES) throw new Error(`the key document is larger than ${MAX_AGENT_KEYS_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Error("the key document is not JSON");
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new Error("the key document is not a JSON object");
  const keys: Record<string, string> = {};
  let providers: HandedProvider[] = [];
  for (const [name, value] of Object.entries(doc)) {
    if (name === PROVIDERS_MEMBER) {
      if (!Array.isArray(value)) throw new Error(`the key document's ${PROVIDERS_MEMBER} must be an array`);
      providers = value.map(handedProvider);
      continue;
    }
    if (!ENV_NAME.test(name) || typeof value !== "string") throw new Error("the key document must map variable names to strings");
    keys[name] = value;
  }
  return { keys, providers };
}

/**
 * In the agent, at start: the keys the daemon handed over when AGENT_KEYS_FD_VAR says so (the
 * descriptor is read to its end, at most one byte past the bound, and closed), else none. Throws
 * with what is wrong when the variable is set but no valid document arrives.
 */
export function readHandedKeys(env: Readonly<Record<string, string | undefined>>): HandedKeys {
  const named = env[AGENT_KEYS_FD_VAR];
  if (named === undefined) return { keys: {}, providers: [] };
  if (named !== String(AGENT_KEYS_FD)) throw new Error(`${AGENT_KEYS_FD_VAR} must be ${AGENT_KEYS_FD}`);
  const buffer = new Uint8Array(MAX_AGENT_KEYS_BYTES + 1);
  let filled = 0;
  try {
    while (filled < buffer.length) {
      const n = readSync(AGENT_KEYS_FD, buffer, filled, buffer.length - filled, null);
      if (n === 0) break;
      filled += n;
    }
  } catch (err) {
    throw new Error(`cannot read the key document on fd ${AGENT_KEYS_FD} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    try {
      closeSync(AGENT_KEYS_FD);
    } catch {
      // not open: the read above said so
    }
  }
  return decodeHandedKeys(buffer.subarray(0, filled));
}
