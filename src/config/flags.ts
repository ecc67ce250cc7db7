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
  token: { kind: "string", default: null, env: "SVC_SERVER_TOKEN", help: "bearer token, 1-4096 visible ASCII characters (prefer env SVC_SERVER_TOKEN)" },
  "require-auth": { kind: "bool", help: "require the token on every route, /health included" },
  "allow-origin": { kind: "string", default: null, multiple: true, help: "CORS allowlist entry (repeatable)" },
  hostname: { kind: "string", default: "127.0.0.1", help: "bind address" },
  port: { kind: "int", min: 0, max: 65535, default: 4170, help: "bind port (0 = ephemeral)" },
  agent: { kind: "enum", values: AGENT_NAMES, default: "", help: "the agent to run (default: settings \"agent\", else builtin; generic runs SVC_CLI_ENTRY; see svc agents)" },
  workspace: { kind: "string", default: null, help: "primary workspace (default: current directory)" },
  // Flags only, no environment variable: an environment is inherited by every process the agents start.
  "trust-workspace": { kind: "bool", help: "trust the workspace for this daemon's life (not saved; svc trust <dir> saves it)" },
  "approval-mode": { kind: "enum", values: APPROVAL_MODES, default: "", help: "the built-in agent's approval mode (default: host settings tools.approvalMode, else auto; an untrusted workspace still gets default)" },
  "no-web": { kind: "bool", help: "do not serve the web UI" },
  "max-sessions": { kind: "int", min: 0, max: INT32, default: 32, help: "live sessions per workspace (0 = unlimited)" },
  "max-total-sessions": { kind: "int", min: 0, max: INT32, default: 800, help: "live sessions in total (0 = unlimited)" },
  "max-workspaces": { kind: "int", min: 1, max: 4096, default: 256, help: "workspaces served, the primary and registered ones together" },
  "max-pending-prompts-per-session": { kind: "int", min: 0, max: 10_000, default: 5, help: "running + queued prompts per session (0 = unlimited)" },
  "max-connections": { kind: "int", min: 1, max: 1_000_000, default: 4096, help: "concurrent HTTP requests and streams" },
  "event-ring-size": { kind: "int", min: 1, max: 1_000_000, default: 8000, help: "SSE replay ring size per session" },
  "mcp-client-budget": { kind: "int", min: 0, max: 100_000, default: null, env: "SVC_SERVE_MCP_CLIENT_BUDGET", help: "MCP clients per session" },
  "mcp-budget-mode": { kind: "enum", values: ["enforce", "warn", "off"], default: "", help: "MCP budget mode (default: enforce with a budget, else off)" },
  "prompt-deadline-ms": { kind: "int", min: 0, max: MAX_MS, default: null, env: "SVC_SERVE_PROMPT_DEADLINE_MS", help: "absolute prompt deadline (0 = none)" },
  "writer-idle-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: null, env: "SVC_SERVE_WRITER_IDLE_TIMEOUT_MS", help: "evict an SSE writer idle this long (0 = never)" },
  "rate-limit": { kind: "bool", env: "SVC_SERVE_RATE_LIMIT", help: "enable rate limiting" },
  "rate-limit-prompt": { kind: "int", min: 1, max: 1_000_000, default: 10, help: "prompts per window" },
  "rate-limit-mutation": { kind: "int", min: 1, max: 1_000_000, default: 30, help: "mutations per window" },
  "rate-limit-read": { kind: "int", min: 1, max: 1_000_000, default: 120, help: "reads per window" },
  "rate-limit-window-ms": { kind: "int", min: 1000, max: MAX_MS, default: 60_000, help: "rate limit window" },
  "session-idle-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: 1_800_000, help: "reap idle sessions (0 = never)" },
  "session-reap-interval-ms": { kind: "int", min: 100, max: MAX_MS, default: 60_000, help: "idle reaper scan interval" },
  "channel-idle-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: 0, help: "keep an idle agent child this long after its last session" },
  "permission-response-timeout-ms": { kind: "int", min: 0, max: MAX_MS, default: 0, help: "cancel unanswered permissions after this (0 = wait)" },
  "initialize-timeout-ms": { kind: "int", min: 100, max: MAX_MS, default: 10_000, help: "agent initialize timeout" },
  "session-restore-timeout-ms": { kind: "int", min: 100, max: MAX_MS, default: 60_000, help: "session load/resume timeout" },
  "child-heap-mode": { kind: "enum", values: ["observe", "admit", "enforce"], default: "observe", help: "agent child admission mode" },
  "memory-budget-mb": { kind: "int", min: 1, max: 1_048_576, default: null, help: "live journal growth pool" },
  "max-journal-bytes": { kind: "int", min: 1024, max: 1 << 30, default: null, help: "pin the live journal byte cap" },
  "max-journal-events": { kind: "int", min: 1, max: 10_000_000, default: null, help: "pin the live journal event cap" },
  "ready-json": { kind: "bool", help: "once listening, print one JSON line on stdout for a launcher (and nothing else there)" },
  "parent-pid": { kind: "int", min: 2, max: INT32, default: null, help: "shut down when the process with this pid ends" },
  "log-level": { kind: "enum", values: ["debug", "info", "warn", "error"], default: "info", help: "stderr log level" },
  "log-format": { kind: "enum", values: ["text", "json"], default: "text", help: "stderr log format" },
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
      const env = spec.env ? ` [env ${spec.env}]` : "";
      // At least one space between the flag and its help, also after a long list of values.
      return `${`  --${name}${arg}`.padEnd(43)} ${spec.help}${env}`;
    })
    .join("\n");
}
