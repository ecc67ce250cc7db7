/**
 * Why the last start of a workspace's agent failed: the error the creating request answered with,
 * kept by the runtime until a start succeeds so `GET /workspace/preflight` can show it (the
 * `agent_start` cell). Codes, by how the start failed:
 * - `cli_entry_missing` (503, not retryable): the entry script or the binary to run cannot be run
 *   (`cli-entry.ts`; a spawn that fails with ENOENT says the same).
 * - `agent_start_failed` (503, not retryable): the child exited or closed its output before its
 *   first session opened, answered `initialize` with an error or with something that is not an
 *   initialize result, was cut off by the daemon for flooding its stdout, or could not be handed
 *   its model keys (`reason` says which).
 *   The same configuration fails the same way, so a client must not loop on it; the message gives
 *   the exit code or signal, or the agent's own message (known secrets replaced, cut at
 *   MAX_AGENT_MESSAGE_CHARS); the child's stderr is in the daemon log (redacted), never in the answer.
 * - `init_timeout` (504, retryable): the child did not answer within `--initialize-timeout-ms` and
 *   was stopped with its family (`acp-channel.ts`). A slow first start (cold caches) may succeed.
 * A start cut short by the daemon's own shutdown answers `daemon_shutting_down` (503, not
 * retryable) and is not recorded: nothing is wrong with the agent.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { redactSecrets } from "../logging/redact.ts";
import type { ExitInfo } from "./agent-process.ts";

export const START_FAILURE_HINT = "Read GET /workspace/preflight and the daemon log (the agent's stderr is logged there)";
/** Longest agent-written message an answer repeats (cut, with `…`). */
export const MAX_AGENT_MESSAGE_CHARS = 500;

/** The step of the start that failed. */
export type StartPhase = "channel.initialize" | "session/new";

/** How the start failed, as the `reason` field of `agent_start_failed` says it. */
export type StartFailureReason = "exited" | "output_rejected" | "initialize_error" | "invalid_initialize_result" | "keys_not_delivered";

/** Agent-written text as an answer may repeat it: known secrets replaced, then cut to size. */
export function agentText(text: string, secrets: readonly string[]): string {
  const clean = redactSecrets(text, secrets);
  return clean.length > MAX_AGENT_MESSAGE_CHARS ? `${clean.slice(0, MAX_AGENT_MESSAGE_CHARS)}…` : clean;
}

const STEP: Record<StartPhase, string> = { "channel.initialize": "answering initialize", "session/new": "opening its first session" };

/** 503 `agent_start_failed`: the agent could not be brought up; the message says how. */
export class AgentStartError extends DaemonError {
  override readonly name = "AgentStartError";
  constructor(message: string, reason: StartFailureReason, phase: StartPhase, extra: Record<string, unknown> = {}) {
    super(503, "agent_start_failed", message, { reason, phase, ...extra, hint: START_FAILURE_HINT, retryable: false });
  }

  /** The child was gone before `phase` completed: `exit` is how it ended, null if it closed its output and was then stopped. */
  static exited(exit: ExitInfo | null, phase: StartPhase): AgentStartError {
    const how = exit === null ? "closed its output" : exit.signalCode !== null ? `was killed by ${exit.signalCode}` : `exited with code ${exit.exitCode}`;
    return new AgentStartError(`The agent ${how} before ${STEP[phase]}`, "exited", phase, { exitCode: exit?.exitCode ?? null, signalCode: exit?.signalCode ?? null });
  }

  /** The daemon cut the child off for what it wrote on stdout (`why`: what it did, "it flooded stdout …"). */
  static outputRejected(why: string, exit: ExitInfo | null, phase: StartPhase): AgentStartError {
    return new AgentStartError(`The daemon stopped the agent before ${STEP[phase]}: ${why}`, "output_rejected", phase, {
      exitCode: exit?.exitCode ?? null,
      signalCode: exit?.signalCode ?? null,
    });
  }

  /** The agent answered `initialize` with a JSON-RPC error; its message is repeated redacted and bounded, its `data` never. */
  static refused(rpcCode: number, message: string, secrets: readonly string[]): AgentStartError {
    return new AgentStartError(`The agent refused initialize: ${agentText(message, secrets)}`, "initialize_error", "channel.initialize", { agentCode: rpcCode });
  }

  /** The built-in agent's model keys could not be handed to it (`config/agent-keys.ts`); `why` names no value. */
  static keysNotDelivered(why: string): AgentStartError {
    return new AgentStartError(`The daemon could not hand the agent its model keys: ${why}`, "keys_not_delivered", "channel.initialize");
  }

  /** The agent answered `initialize` with something that is not an initialize result. */
  static invalidResult(problem: string): AgentStartError {
    return new AgentStartError(`The agent answered initialize with an invalid result: ${problem}`, "invalid_initialize_result", "channel.initialize", { errorKind: "protocol_error" });
  }
}

/** 503 `daemon_shutting_down`: the daemon is stopping; an agent start in progress was abandoned and its child stopped. */
export class ShuttingDownError extends DaemonError {
  override readonly name = "ShuttingDownError";
  constructor() {
    super(503, "daemon_shutting_down", "The daemon is shutting down; the agent was not started", { retryable: false });
  }
}

/** The last failed start, as the preflight `agent_start` cell shows it. */
export interface StartFailure {
  readonly code: string;
  readonly error: string;
  readonly errorKind?: string;
  readonly hint?: string;
  readonly exitCode?: number | null;
  readonly signalCode?: string | null;
  /** When the start failed (ISO 8601). */
  readonly at: string;
}

/** What of a start error the runtime remembers; the fields are the ones its body carries. */
export function startFailure(err: DaemonError, at: Date): StartFailure {
  const f = err.fields as { errorKind?: unknown; hint?: unknown; exitCode?: unknown; signalCode?: unknown };
  return {
    code: err.code ?? "agent_error",
    error: err.message,
    ...(typeof f.errorKind === "string" ? { errorKind: f.errorKind } : {}),
    hint: typeof f.hint === "string" ? f.hint : START_FAILURE_HINT,
    ...(f.exitCode !== undefined ? { exitCode: f.exitCode as number | null, signalCode: f.signalCode as string | null } : {}),
    at: at.toISOString(),
  };
}
