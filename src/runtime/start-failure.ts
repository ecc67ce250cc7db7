/**
 * Why the last start of a workspace's agent failed: the error the creating request answered with,
 * kept by the runtime until a start succeeds so `GET /workspace/preflight` can show it (the
 * `agent_start` cell). Codes, by how the start failed:
 * - `cli_entry_missing` (503, not retryable): the entry script cannot be run (`cli-entry.ts`).
 * - `agent_start_failed` (503, not retryable): the child exited, or closed its output, before
 *   answering `initialize`. The same configuration fails the same way, so a client must not loop on
 *   it; the message gives the exit code or signal, the child's stderr is in the daemon log
 *   (redacted), never in the answer.
 * - `init_timeout` (504, retryable): the child did not answer within `--initialize-timeout-ms` and
 *   was stopped with its family (`acp-channel.ts`). A slow first start (cold caches) may succeed.
 * An agent that answers `initialize` with an error is forwarded as is (`AgentRequestError`).
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { ExitInfo } from "./agent-process.ts";

export const START_FAILURE_HINT = "Read GET /workspace/preflight and the daemon log (the agent's stderr is logged there)";

/** The child was gone before `initialize` was answered: `exit` is how it ended, null if it closed its output and was then stopped. */
export class AgentStartError extends DaemonError {
  override readonly name = "AgentStartError";
  constructor(exit: ExitInfo | null) {
    const how =
      exit === null
        ? "closed its output"
        : exit.signalCode !== null
          ? `was killed by ${exit.signalCode}`
          : `exited with code ${exit.exitCode}`;
    super(503, "agent_start_failed", `The agent ${how} before answering initialize`, {
      exitCode: exit?.exitCode ?? null,
      signalCode: exit?.signalCode ?? null,
      phase: "channel.initialize",
      hint: START_FAILURE_HINT,
      retryable: false,
    });
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
