/**
 * The `svc serve` flag table: every flag, its environment fallback, type, range and default.
 * `readFlags` turns argv + env into raw typed values; `config.ts` derives the Config from them.
 * A value that fails validation is a BootError naming the flag.
 */
import { parseArgs } from "node:util";
import { AGENT_NAMES } from "./agent-catalog.ts";
import { APPROVAL_MODES } from "./approval-modes.ts";
import { BootError } from "./boot-error.ts";

type IntSpec = { kind: "int"; min: number; max: number; default: number | null; env?: string };
type StringSpec = { kind: "string"; default: string | null; env?: string; multiple?: boolean };
type EnumSpec = { kind: "enum"; values: readonly string[]; default: string; env?: string };
type BoolSpec = { kind: "bool"; env?: string };
type FlagSpec = (IntSpec | StringSpec | EnumSpec | BoolSpec) & { help: string };

const MAX_MS = 2_147_483_647; // setTimeout's ceiling
const INT32 = 2_147_483_647;

export const FLAGS = {
  token: { kind: "string", default: null, env: "SVC_SERVER_TOKEN", help: "require this bearer token on the API (1-4096 visible ASCII characters; prefer the environment variable, which ps cannot show)" },
  "token-file": { kind: "string", default: null, help: "read the bearer token from this file instead: a regular file of yours, mode 0600 or stricter, the token on one line (what svc service install sets up)" },
  "require-auth": { kind: "bool", help: "require the token on every route, /health included" },
  "allow-origin": { kind: "string", default: null, multiple: true, help: "a browser origin allowed to call the API, e.g. http://localhost:3000 (repeatable; default: none)" },
  hostname: { kind: "string", default: "127.0.0.1", help: "address to listen on (a non-loopback one needs a token)" },
  port: { kind: "int", min: 0, max: 65535, default: 4170, help: "port to listen on (0 = any free port)" },
  agent: { kind: "enum", values: AGENT_NAMES, default: "", help: "the agent to run (default: \"agent\" in $SVC_HOME/settings.json, else builtin; generic runs SVC_CLI_ENTRY; see svc agents)" },
  workspace: { kind: "string", default: null, help: "the project folder the agent works in (default: the current directory)" },
  // Flags only, no environment variable: an environment is inherited by every process the agents start.
  "trust-workspace": { kind: "bool", help: "trust the workspace for this daemon's life (not saved; svc trust <dir> saves it)" },
  "approval-mode": { kind: "enum", values: APPROVAL_MODES, default: "", help: "when the built-in agent asks before acting (default: tools.approvalMode in $SVC_HOME/settings.json, else auto; an untrusted folder always asks)" },
  open: { kind: "bool", help: "open the web UI in the browser once listening (never with the token in the address: the UI asks for it)" },
  "no-web": { kind: "bool", help: "do not serve the web UI at /" },
  "max-sessions": { kind: "int", min: 0, max: INT32, default: 32, help: "open sessions per workspace (0 = unlimited)" },
  "max-total-sessions": { kind: "int", min: 0, max: INT32, default: 800, help: "open sessions in all (0 = unlimited)" },
  "max-workspaces": { kind: "int", min: 1, max: 4096, default: 256, help: "workspaces served at once, the primary and the registered ones together" },
  "max-pending-prompts-per-session": { kind: "int", min: 0, max: 10_000, default: 5, help: "running plus queued prompts per session (0 = unlimited)" },
  "max-connections": { kind: "int", min: 1, max: 1_000_000, default: 4096, help: "HTTP requests and event streams open at once" },
  "event-ring-size": { kind: "int", min: 1, max: 1_000_000, default: 8000, help: "recent events per session a reconnecting event stream can catch up on" },
  "mcp-client-budget": { kind: "int", min: 0, max: 100_000, default: null, env: "SVC_SERVE_MCP_CLIENT_BUDGET", help: "MCP servers the agent may connect per session (default: no limit)" },
  "mcp-budget-mode": { kind: "enum", values: ["enforce", "warn", "off"], default: "", help: "what happens past that number: refuse the rest, warn, or nothing (default: enforce when a number is set, else off)" },
  "prompt-deadline-ms": { kind: "int", min: 0, max: MAX_MS, default: null, env: "SVC_SERVE_PROMPT_DEADLINE_MS", help: "cancel a prompt still running after this many milliseconds (default: 0 = never)" },
  "writer-idle-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: null, env: "SVC_SERVE_WRITER_IDLE_TIMEOUT_MS", help: "close an event stream whose client has read nothing for this many milliseconds (default: 0 = never)" },
  "rate-limit": { kind: "bool", env: "SVC_SERVE_RATE_LIMIT", help: "limit requests per client, by kind, within a time window" },
  "rate-limit-prompt": { kind: "int", min: 1, max: 1_000_000, default: 10, help: "prompts per window, with --rate-limit" },
  "rate-limit-mutation": { kind: "int", min: 1, max: 1_000_000, default: 30, help: "other changes (POST, PUT, DELETE) per window, with --rate-limit" },
  "rate-limit-read": { kind: "int", min: 1, max: 1_000_000, default: 120, help: "reads (GET) per window, with --rate-limit" },
  "rate-limit-window-ms": { kind: "int", min: 1000, max: MAX_MS, default: 60_000, help: "the rate limit window, in milliseconds" },
  "session-idle-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: 1_800_000, help: "close a session nobody has used for this many milliseconds; it stays restorable (0 = never)" },
  "session-reap-interval-ms": { kind: "int", min: 100, max: MAX_MS, default: 60_000, help: "how often, in milliseconds, idle sessions are looked for" },
  "channel-idle-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: 0, help: "keep the agent process running this many milliseconds after its last session closes" },
  "permission-response-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: 0, help: "cancel a permission request nobody answered within this many milliseconds (0 = wait for an answer)" },
  "initialize-timeout-ms": { kind: "int", min: 100, max: MAX_MS, default: 10_000, help: "how long, in milliseconds, a starting agent has to answer" },
  "session-restore-timeout-ms": { kind: "int", min: 100, max: MAX_MS, default: 60_000, help: "how long, in milliseconds, an agent has to reopen a saved session" },
  "child-heap-mode": { kind: "enum", values: ["observe", "admit", "enforce"], default: "observe", help: "observe: only report agent processes' memory; admit or enforce: refuse new agent processes past the modelled limit" },
  "memory-budget-mb": { kind: "int", min: 1, max: 1_048_576, default: null, help: "memory, in MiB, that reopening long sessions may use beyond their usual history size (default: 64)" },
  "max-journal-bytes": { kind: "int", min: 1024, max: 1 << 30, default: null, help: "most bytes of history returned when a session is reopened (fixed: turns off the growth above; default: 8 MiB)" },
  "max-journal-events": { kind: "int", min: 1, max: 10_000_000, default: null, help: "most events of history returned when a session is reopened (fixed: turns off the growth above; default: 10000)" },
  "max-snapshot-bytes": { kind: "int", min: 1024, max: 1024 * 1024 * 1024 * 1024, default: null, help: "most bytes of file snapshots kept for rewind, oldest turns dropped first (default: checkpoints.maxBytes in $SVC_HOME/settings.json, else 256 MiB)" },
  "ready-json": { kind: "bool", help: "once listening, print one JSON line on stdout for a launcher (and nothing else there)" },
  "parent-pid": { kind: "int", min: 2, max: INT32, default: null, help: "stop when the process with this pid ends (for launchers)" },
  "release-url": { kind: "string", default: null, env: "SVC_RELEASE_URL", help: "where GET /daemon/update looks for releases (default: the project's release location, as install.sh)" },
  "log-level": { kind: "enum", values: ["debug", "info", "warn", "error"], default: "info", help: "what is logged on stderr" },
  "log-format": { kind: "enum", values: ["text", "json"], default: "text", help: "how stderr log lines look" },
} satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;
type ValueOf<S> = S extends IntSpec
  ? S["default"] extends number ? number : number | null
  : S extends BoolSpec ? boolean
  : S extends { multiple: true } ? string[]
  : S extends EnumSpec ? string
  : string | null;
export type FlagValues = { -readonly [K in FlagName]: ValueOf<(typeof FLAGS)[K]> };

function parseInteger(name: string, raw: string, spec: IntSpec): number {
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text)) throw new BootError(`--${name}: ${JSON.stringify(raw)} is not a whole number (expected ${spec.min}..${spec.max})`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < spec.min || n > spec.max)
    throw new BootError(`--${name}: ${text} is out of range (expected ${spec.min}..${spec.max})`);
  return n;
}

function truthyEnv(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new BootError(`${name}: ${JSON.stringify(raw)} is not a boolean (use 1 or 0)`);
}

/** An environment-only switch (no flag): unset, empty, `0`, `false`… are off; junk fails boot. */
export function envSwitch(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const raw = env[name];
  return raw !== undefined && truthyEnv(name, raw);
}

type ParserOptions = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;

/** The flag table as `parseArgs` options. */
function parserOptions(): ParserOptions {
  const options: ParserOptions = {};
  for (const [name, spec] of Object.entries(FLAGS) as [string, FlagSpec][])
    options[name] = { type: spec.kind === "bool" ? "boolean" : "string", ...("multiple" in spec && spec.multiple ? { multiple: true } : {}) };
  return options;
}

/**
 * Whether `argv` asks for help: `--help` or `-h` where the parser reads a flag, as `options` define
 * the flags. As the value of a flag (`--token -h`, `--workspace --help`) or after `--` it is not a
 * request for help, and the strict parse that follows decides (here: an ambiguous value, a boot
 * error). Help wins over any other mistake in `argv`.
 */
export function helpRequested(argv: readonly string[], options: ParserOptions = parserOptions()): boolean {
  const { tokens } = parseArgs({ args: [...argv], options: { ...options, help: { type: "boolean", short: "h" } }, strict: false, allowPositionals: true, tokens: true });
  return tokens.some((token) => token.kind === "option" && token.name === "help");
}

/** Parses `svc serve` arguments; flags win over their environment variables. */
export function readFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): FlagValues {
  const options = parserOptions();
  let parsed: Record<string, string | boolean | string[] | undefined>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as typeof parsed;
  } catch (err) {
    throw new BootError((err as Error).message.replace(/\. To specify.*$/s, "").split("\n")[0]!);
  }

  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(FLAGS) as [string, FlagSpec][]) {
    const given = parsed[name];
    const fromEnv = spec.env !== undefined && env[spec.env] !== undefined && env[spec.env] !== "" ? env[spec.env] : undefined;
    switch (spec.kind) {
      case "bool":
        out[name] = given === true || (given === undefined && fromEnv !== undefined && truthyEnv(spec.env!, fromEnv));
        break;
      case "int": {
        const raw = (given as string | undefined) ?? fromEnv;
        out[name] = raw === undefined ? spec.default : parseInteger(given !== undefined ? name : `${name} (env ${spec.env})`, raw, spec);
        break;
      }
      case "enum": {
        const raw = (given as string | undefined) ?? fromEnv;
        if (raw !== undefined && !spec.values.includes(raw))
          throw new BootError(`--${name}: ${JSON.stringify(raw)} is not one of ${spec.values.join(", ")}`);
        out[name] = raw ?? spec.default;
        break;
      }
      case "string":
        if (spec.multiple) out[name] = (given as string[] | undefined) ?? [];
        else out[name] = (given as string | undefined) ?? fromEnv ?? spec.default;
        break;
    }
  }
  return out as FlagValues;
}

/** One line per flag, for `svc serve --help`. */
export function flagHelp(): string {
  return (Object.entries(FLAGS) as [string, FlagSpec][])
    .map(([name, spec]) => {
      const arg = spec.kind === "bool" ? "" : spec.kind === "enum" ? ` <${spec.values.join("|")}>` : spec.kind === "int" ? " <n>" : " <value>";
      const shown = "default" in spec && spec.default !== null && spec.default !== "" && !spec.help.includes("default:") ? ` (default: ${spec.default})` : "";
      const env = spec.env ? ` [env ${spec.env}]` : "";
      // At least one space between the flag and its help, also after a long list of values.
      return `${`  --${name}${arg}`.padEnd(43)} ${spec.help}${shown}${env}`;
    })
    .join("\n");
}
