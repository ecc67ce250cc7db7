/**
 * `channels` of the host settings (`$SVC_HOME/settings.json`): the webhook sources that may post to
 * `POST /channels/:channelName/webhooks/:source` and the sessions their events prompt. Host settings
 * only, never a workspace file: a cloned repository must not be able to open an ingress into the
 * daemon or choose what it prompts.
 *
 *   "channels": { "<channel>": { "webhooks": { "sources": { "<source>": {
 *     "secret": "…" | "secretEnv": "NAME",         exactly one; the value must be non-empty
 *     "deliveryHeader": "x-github-delivery",      optional: the header carrying the delivery id
 *     "targets": { "<targetRef>": { "sessionId": "…", "instruction": "Fix the build." } }
 *   } } } } }
 *
 * A malformed entry fails boot, naming the key, like every other setting.
 */
import { BootError } from "./boot-error.ts";
import { isSecretName } from "./secret-names.ts";

export interface WebhookTarget {
  /** The session the event prompts. */
  readonly sessionId: string;
  /** The trusted text the prompt starts with; the event's own fields follow it, delimited as untrusted. */
  readonly instruction: string;
}

export interface WebhookSource {
  readonly secret: string;
  /** Lower-cased header names read, in order, for the delivery id. */
  readonly deliveryHeaders: readonly string[];
  readonly targets: ReadonlyMap<string, WebhookTarget>;
}

/** channel name → source name → source. */
export type ChannelSettings = ReadonlyMap<string, ReadonlyMap<string, WebhookSource>>;

/** Delivery-id headers read when a source names none: svc's own, then GitHub's and GitLab's. */
export const DEFAULT_DELIVERY_HEADERS: readonly string[] = ["x-svc-webhook-delivery", "x-github-delivery", "x-gitlab-event-uuid"];

export const DEFAULT_INSTRUCTION = "A webhook event arrived for this session. Look into it and act on it if it calls for work.";

/** Longest instruction accepted (bytes of UTF-8): it is operator text, but it becomes every such prompt. */
const MAX_INSTRUCTION_BYTES = 8 * 1024;
/**
 * Channel, source and target names: plain URL-safe characters, so the path segment that names one
 * is the name itself, never an encoding of it (an encoded spelling matches no name).
 */
const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Doc = Record<string, unknown>;

function objectAt(file: string, key: string, value: unknown): Doc {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new BootError(`${file}: ${key} must be an object`);
  return value as Doc;
}

function nameAt(file: string, key: string, name: string): string {
  if (!NAME.test(name)) throw new BootError(`${file}: ${key} has ${JSON.stringify(name)}, not a name of 1 to 128 letters, digits, ".", "_" or "-"`);
  return name;
}

function readSecret(file: string, key: string, source: Doc, env: Readonly<Record<string, string | undefined>>): string {
  const { secret, secretEnv } = source;
  if ((secret === undefined) === (secretEnv === undefined)) throw new BootError(`${file}: ${key} must set exactly one of "secret" and "secretEnv"`);
  if (secret !== undefined) {
    if (typeof secret !== "string" || secret === "") throw new BootError(`${file}: ${key}.secret must be a non-empty string`);
    return secret;
  }
  if (typeof secretEnv !== "string" || !ENV_NAME.test(secretEnv)) throw new BootError(`${file}: ${key}.secretEnv must be an environment variable name`);
  // A name on the scrub list is kept from the built-in agent and the commands it runs.
  if (!isSecretName(secretEnv)) throw new BootError(`${file}: ${key}.secretEnv must name a secret variable (ending in _SECRET, _TOKEN, _KEY, …), which agents' commands never see`);
  const value = env[secretEnv];
  if (value === undefined || value === "") throw new BootError(`${file}: ${key}.secretEnv names ${secretEnv}, which is unset or empty`);
  return value;
}

function readTarget(file: string, key: string, raw: unknown): WebhookTarget {
  const target = objectAt(file, key, raw);
  const { sessionId, instruction = DEFAULT_INSTRUCTION } = target;
  if (typeof sessionId !== "string" || sessionId === "") throw new BootError(`${file}: ${key}.sessionId must be a non-empty string`);
  if (typeof instruction !== "string" || instruction.trim() === "" || Buffer.byteLength(instruction) > MAX_INSTRUCTION_BYTES)
    throw new BootError(`${file}: ${key}.instruction must be a non-empty string of at most ${MAX_INSTRUCTION_BYTES} bytes`);
  return { sessionId, instruction };
}

function readSource(file: string, key: string, raw: unknown, env: Readonly<Record<string, string | undefined>>): WebhookSource {
  const source = objectAt(file, key, raw);
  const secret = readSecret(file, key, source, env);
  let deliveryHeaders = DEFAULT_DELIVERY_HEADERS;
  if (source.deliveryHeader !== undefined) {
    const header = source.deliveryHeader;
    if (typeof header !== "string" || !HEADER_NAME.test(header.toLowerCase())) throw new BootError(`${file}: ${key}.deliveryHeader must be a header name`);
    deliveryHeaders = [header.toLowerCase()];
  }
  const targets = new Map<string, WebhookTarget>();
  for (const [ref, target] of Object.entries(objectAt(file, `${key}.targets`, source.targets)))
    targets.set(nameAt(file, `${key}.targets`, ref), readTarget(file, `${key}.targets.${ref}`, target));
  return { secret, deliveryHeaders, targets };
}

/** `channels` of settings document `doc` read from `file`; empty when absent. */
export function readChannelSettings(file: string, doc: Doc, env: Readonly<Record<string, string | undefined>>): ChannelSettings {
  const channels = new Map<string, Map<string, WebhookSource>>();
  if (doc.channels === undefined) return channels;
  for (const [channel, raw] of Object.entries(objectAt(file, "channels", doc.channels))) {
    nameAt(file, "channels", channel);
    const entry = objectAt(file, `channels.${channel}`, raw);
    if (entry.webhooks === undefined) continue;
    const webhooks = objectAt(file, `channels.${channel}.webhooks`, entry.webhooks);
    const sources = new Map<string, WebhookSource>();
    for (const [name, source] of Object.entries(objectAt(file, `channels.${channel}.webhooks.sources`, webhooks.sources)))
      sources.set(nameAt(file, `channels.${channel}.webhooks.sources`, name), readSource(file, `channels.${channel}.webhooks.sources.${name}`, source, env));
    channels.set(channel, sources);
  }
  return channels;
}
