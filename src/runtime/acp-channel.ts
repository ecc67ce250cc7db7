/**
 * The ACP connection to one agent child, on the SDK's client app API over the child's stdio.
 * `open` sends `initialize` with a deadline; the channel is dead once either the process exits or
 * the connection closes (EOF, too much stray output, or a child that stopped reading its input:
 * see `stdout-guard.ts` and `stdin-queue.ts`). A line over MAX_MESSAGE_BYTES ends nothing: it is
 * dropped, logged with its size, and its owner (a request, a session) is told
 * (`output-rejection.ts`). A child that stops answering altogether is reported through
 * `onUnresponsive` by the wedge rule (`wedge-watch.ts`): request timeouts count (not those of
 * `bestEffort` reads), any answer from the child clears them, and at the count the child is asked
 * LIVENESS_METHOD, which a child that reads answers at once.
 * A permission request is bounded in bytes as it arrives, within the agent's budget of pending
 * requests (`permission-budget.ts`), before the SDK holds it until it is answered; one a handler
 * refuses (`AgentRequestRefused`) is answered with that JSON-RPC error.
 * The one agent→client extension request answered is `svc/checkpoint/before_write` (the agent is
 * about to write a file: `ChannelHandlers.onBeforeWrite`). Unknown agent→client requests are answered `-32601` by the SDK, which is loaded on the first
 * spawn rather than at boot (it is most of the daemon's startup cost and idle memory otherwise).
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import { redactSecrets } from "../logging/redact.ts";
import { errorFacts, forwardedData, type AgentErrorFacts } from "./agent-error-data.ts";
import type { AgentProcess } from "./agent-process.ts";
import { AgentRequestRefused } from "./agent-request-refused.ts";
import { initializeResultProblem } from "./initialize-result.ts";
import type { LineOwner } from "./oversized-line.ts";
import { droppedAnswer, noticeOf, OUTPUT_REJECTED_METHOD, OutputRejectedError, standInLine, tooLarge, type OutputRejection } from "./output-rejection.ts";
import { PermissionBudget } from "./permission-budget.ts";
import { agentText, AgentStartError, ShuttingDownError } from "./start-failure.ts";
import { stdinQueue } from "./stdin-queue.ts";
import { guardStdout, isRpcMessage, STRAY_REJECTION, StrayOutputBudget } from "./stdout-guard.ts";
import { WEDGE_SILENCE_MS, WedgeWatch, type WedgeVerdict } from "./wedge-watch.ts";

/** Largest single message accepted from a child; a longer line is dropped (see the header). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface ChannelHandlers {
  onSessionUpdate(params: acp.SessionNotification): void;
  onPermissionRequest(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** Agent extension notifications (e.g. `qwen/notify/...`). */
  onExtNotification(method: string, params: unknown): void;
  /** A message the agent wrote for a session was over MAX_MESSAGE_BYTES and dropped. */
  onOutputRejected(rejection: OutputRejection): void;
  /**
   * `svc/checkpoint/before_write {sessionId, path}`: the agent is about to change a file in a turn;
   * answered (`{recorded}`) once the file's content is kept, so the agent writes after that.
   */
  onBeforeWrite?(sessionId: string, path: string): Promise<boolean>;
}

/** The agent's notice that it is about to write a file (see `ChannelHandlers.onBeforeWrite`). */
export const BEFORE_WRITE_METHOD = "svc/checkpoint/before_write";

/**
 * An error the agent answered a request with, forwarded JSON-RPC style (`{error, code: <int>, data?}`):
 * known secrets are replaced in its message (also cut to size) and in every string of its `data`,
 * and `data` is bounded in bytes (`agent-error-data.ts`): `facts` is what a failed turn says of it.
 */
export class AgentRequestError extends DaemonError {
  override readonly name = "AgentRequestError";
  /** The agent's `data` as forwarded: as it sent it when small, else a note of its size. */
  readonly data: unknown;
  readonly facts: AgentErrorFacts;
  constructor(
    readonly rpcCode: number,
    message: string,
    data: unknown,
  ) {
    super(500, null, message);
    this.data = forwardedData(data);
    this.facts = errorFacts(data);
  }

  override body(): Record<string, unknown> {
    return this.data === undefined ? { error: this.message, code: this.rpcCode } : { error: this.message, code: this.rpcCode, data: this.data };
  }
}

export class ChannelClosedError extends DaemonError {
  override readonly name = "ChannelClosedError";
  constructor(
    detail: string,
    /** Set when the daemon closed it because of what the agent wrote on stdout: what it did ("it flooded stdout …"). */
    readonly outputRejected: string | null = null,
  ) {
    super(503, "acp_channel_unavailable", `The agent channel is closed: ${detail}`, { errorKind: "protocol_error", retryable: true }, 1);
  }
}

/** The hint of a timed-out start step: what may help, and the flag that sets the deadline. */
const TIMEOUT_HINT =
  "A slow first start may succeed on retry; otherwise raise --initialize-timeout-ms, or read GET /workspace/preflight and the daemon log (the agent's stderr is logged there)";

/** 504 `init_timeout`: retryable, since a slow first start (cold caches) may make it next time; the caller stops the child. */
export function initTimeoutError(timeoutMs: number): DaemonError {
  return new DaemonError(
    504,
    "init_timeout",
    `The agent did not answer initialize within ${timeoutMs} ms (--initialize-timeout-ms); it was stopped`,
    {
      errorKind: "init_timeout",
      retryable: true,
      sideEffectPossible: false,
      phase: "channel.initialize",
      timeoutMs,
      hint: TIMEOUT_HINT,
    },
    5,
  );
}

/**
 * 504 `agent_timeout`: a request with a deadline (`session/new` while a session opens, bounded by
 * `--initialize-timeout-ms`) went unanswered; retryable like an initialize timeout, with the same hint.
 */
export function requestTimeoutError(method: string, timeoutMs: number): DaemonError {
  return new DaemonError(
    504,
    "agent_timeout",
    `The agent did not answer ${method} within ${timeoutMs} ms (--initialize-timeout-ms)`,
    { errorKind: "init_timeout", retryable: true, sideEffectPossible: true, phase: method, timeoutMs, hint: TIMEOUT_HINT },
    5,
  );
}

/** Every string in an agent's error `data` with known secrets replaced (the structure kept). */
function redactData(data: unknown, secrets: readonly string[]): unknown {
  if (typeof data === "string") return redactSecrets(data, secrets);
  if (Array.isArray(data)) return data.map((item) => redactData(item, secrets));
  if (typeof data === "object" && data !== null) return Object.fromEntries(Object.entries(data).map(([k, v]) => [redactSecrets(k, secrets), redactData(v, secrets)]));
  return data;
}

/** The SDK's RequestError: a JSON-RPC error the agent answered with (numeric code). */
function rpcError(err: unknown): { code: number; message: string; data: unknown } | null {
  const rpc = err as { code?: unknown; data?: unknown };
  return err instanceof Error && typeof rpc.code === "number" ? { code: rpc.code, message: err.message, data: rpc.data } : null;
}

/** What the daemon says should the SDK's reader still meet a line over MAX_MESSAGE_BYTES (its MessageTooLargeError; the guard drops them first). */
const OVERSIZED = `it wrote a message over the ${MAX_MESSAGE_BYTES}-byte cap on stdout`;

const PERMISSION_METHOD = "session/request_permission";
const isRequestId = (id: unknown): id is string | number => typeof id === "string" || typeof id === "number";

/** The stand-in request's params (`output-rejection.ts`), as the SDK hands them over. */
const standInParams = (params: unknown) => (params ?? {}) as Record<string, unknown>;

function toDaemonError(err: unknown, method: string, secrets: readonly string[], outputRejected: string | null, nonce: string): DaemonError {
  if (err instanceof DaemonError) return err;
  const rpc = rpcError(err);
  const dropped = rpc === null ? null : droppedAnswer(rpc.data, nonce);
  if (dropped !== null) return new OutputRejectedError(method, dropped.bytes, dropped.limit);
  if (rpc !== null) return new AgentRequestError(rpc.code, agentText(rpc.message, secrets), redactData(rpc.data, secrets));
  const rejected = outputRejected ?? (err instanceof Error && err.name === "MessageTooLargeError" ? OVERSIZED : null);
  return new ChannelClosedError(`${method}: ${err instanceof Error ? err.message : String(err)}`, rejected);
}

/**
 * `session/update` notifications are taken off the message stream before the SDK's dispatcher and
 * handed over verbatim, in arrival order: the daemon republishes them opaquely (unknown update
 * kinds and extra fields included), and doing it here keeps them strictly ahead of the prompt
 * response that follows them on the wire. Records that are not JSON-RPC messages are dropped and
 * spend the channel's stray-output budget; a child that overdraws it is cut off (see `isRpcMessage`).
 * The stand-ins for dropped lines (`output-rejection.ts`) are taken off here too, in the dropped
 * line's place: the session hears of it, and a request's stand-in goes on for the SDK to answer.
 * A permission request's params are bounded in place here (`permission-budget.ts`), before the SDK
 * keeps them until the daemon answers; the answer, on its way out, gives their bytes back.
 */
/** A method no agent has (an ACP extension name): the wedge rule's probe, answered "method not found" by any agent that reads. */
export const LIVENESS_METHOD = "_svc/liveness";

/** A response to one of the daemon's requests (it has an id and a result or an error, and no method). */
const isAnswer = (m: { method?: unknown; id?: unknown }) => m.method === undefined && m.id !== undefined && ("result" in m || "error" in m);

function interceptUpdates(
  stream: acp.Stream,
  handlers: ChannelHandlers,
  budget: StrayOutputBudget,
  onReject: (why: string) => void,
  nonce: string,
  wedge: WedgeWatch,
  permissions: PermissionBudget,
): acp.Stream {
  const readable = stream.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform(message, controller) {
        const m = message as { method?: unknown; id?: unknown; params?: unknown };
        if (isAnswer(m)) wedge.heard();
        if (m.method === OUTPUT_REJECTED_METHOD) {
          const notice = noticeOf(m.params, nonce);
          if (notice !== null)
            try {
              handlers.onOutputRejected(notice);
            } catch {
              // a handler bug must not break the channel
            }
          if (m.id !== undefined) controller.enqueue(message);
          return;
        }
        if (m.method === "session/update" && m.id === undefined && m.params && typeof m.params === "object") {
          try {
            handlers.onSessionUpdate(m.params as acp.SessionNotification);
          } catch {
            // a handler bug must not break the channel
          }
          return;
        }
        if (!isRpcMessage(message)) {
          if (!budget.spend()) {
            onReject(`records that are not JSON-RPC messages: ${STRAY_REJECTION}`);
            controller.error(new Error("agent wrote too many records that are not JSON-RPC messages"));
          }
          return;
        }
        if (m.method === PERMISSION_METHOD && isRequestId(m.id) && m.params !== null && typeof m.params === "object" && !Array.isArray(m.params))
          permissions.admit(m.id, m.params as Record<string, unknown>);
        controller.enqueue(message);
      },
    }),
  );
  // The daemon's answers pass here on their way out: an answered permission request's bytes are free again.
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<acp.AnyMessage>({
    async write(message) {
      const m = message as { method?: unknown; id?: unknown };
      if (m.method === undefined && isRequestId(m.id)) permissions.answered(m.id);
      await writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}

export interface OpenOptions {
  readonly initTimeoutMs: number;
  readonly clientVersion: string;
  readonly logger: Logger;
  /** Replaced in whatever the agent writes that an answer repeats (`stderr-secrets.ts`). */
  readonly secrets: readonly string[];
  /** Aborted when the daemon shuts down: `initialize` stops waiting and the open fails with ShuttingDownError. */
  readonly signal: AbortSignal;
  /** The wedge rule judged the child unresponsive (once); the caller recycles it. */
  readonly onUnresponsive?: (verdict: WedgeVerdict) => void;
}

/** Why the daemon itself cut a child off, once it has: for the `session_died` of its sessions. */
export interface ChannelCutOff {
  readonly reason: "output_rejected" | "agent_unresponsive";
  readonly message: string;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * A read the daemon can do without (a status view): its timeout is the daemon's patience running
   * out, not a sign the agent stopped (an agent may take long to gather a status, e.g. waiting on
   * its MCP servers, and the daemon sends them in batches of its own accord), so it does not count
   * towards the wedge rule. A wedged agent is still caught by the requests a user waits on.
   */
  readonly bestEffort?: boolean;
}

export class AcpChannel {
  readonly closed: Promise<void>;
  private isClosed = false;
  private closeReason = "closed";

  private constructor(
    private readonly connection: acp.ClientConnection,
    readonly init: acp.InitializeResponse,
    private readonly logger: Logger,
    private readonly secrets: readonly string[],
    /** Why the daemon cut the child off for its stdout, once it has (read when a request fails). */
    private readonly rejection: () => string | null,
    /** Marks the daemon's stand-ins for dropped lines (`output-rejection.ts`). */
    private readonly nonce: string,
    private readonly wedge: WedgeWatch,
    private readonly cutOffBy: () => ChannelCutOff | null,
  ) {
    const closed = () => {
      this.isClosed = true;
      wedge.close();
    };
    this.closed = connection.closed.then(closed, closed);
  }

  /** Why the daemon cut the child off (its output, or it stopped reading), if it did. */
  get cutOff(): ChannelCutOff | null {
    return this.cutOffBy();
  }

  /**
   * Connects to the child's stdio and completes `initialize` within `initTimeoutMs`. A start that
   * fails throws a DaemonError: `init_timeout`, `daemon_shutting_down` (`signal` aborted),
   * `agent_start_failed` for an error answer or an invalid result, ChannelClosedError for a closed
   * channel (the caller turns it into `agent_start_failed` once it knows how the child ended).
   */
  static async open(child: AgentProcess, handlers: ChannelHandlers, options: OpenOptions): Promise<AcpChannel> {
    const sdk = await import("@agentclientprotocol/sdk/unstable");
    const app = sdk
      .client({ name: "svc" })
      .onRequest(sdk.methods.client.session.requestPermission, async ({ params, signal }) => {
        try {
          return await handlers.onPermissionRequest(params, signal);
        } catch (err) {
          if (err instanceof AgentRequestRefused) throw new sdk.RequestError(err.rpcCode, err.message, err.data);
          throw err;
        }
      })
      // The stand-in for an agent request the daemon dropped: the agent is answered with an error.
      .onRequest(OUTPUT_REJECTED_METHOD, standInParams, ({ params }) => {
        throw new sdk.RequestError(-32600, tooLarge(`request${typeof params.method === "string" ? ` ${params.method}` : ""}`, Number(params.bytes), Number(params.limit)), { bytes: params.bytes, limit: params.limit });
      })
      .onRequest(BEFORE_WRITE_METHOD, standInParams, async ({ params }) => {
        if (typeof params.sessionId !== "string" || typeof params.path !== "string") throw sdk.RequestError.invalidParams(undefined, "sessionId and path must be strings");
        return { recorded: (await handlers.onBeforeWrite?.(params.sessionId, params.path)) ?? false };
      })
      .onNotification("*", ({ method, params }) => handlers.onExtNotification(method, params));

    let cutOff: ChannelCutOff | null = null;
    let askLiveness = () => {};
    const wedge = new WedgeWatch(
      (verdict) => options.onUnresponsive?.(verdict),
      () => askLiveness(),
    );
    const output = stdinQueue(
      child.stdin,
      (error) => {
        cutOff ??= { reason: "agent_unresponsive", message: error.message };
        options.logger.warn("agent stopped reading its input; ending it", { pid: child.pid, error: error.message });
        child.kill();
      },
      { lastHeard: () => wedge.lastHeardAt },
    );
    let rejected: string | null = null;
    const reject = (why: string) => {
      rejected ??= `it flooded stdout with output that is not ACP (${why})`;
      cutOff ??= { reason: "output_rejected", message: `the daemon stopped the agent: ${rejected}` };
      options.logger.warn("agent stdout rejected", { pid: child.pid, why });
    };
    const budget = new StrayOutputBudget();
    const nonce = crypto.randomUUID();
    const oversized = (bytes: number, owner: LineOwner) => {
      options.logger.warn("agent output line over the frame bound dropped", {
        pid: child.pid,
        bytes,
        limit: MAX_MESSAGE_BYTES,
        kind: owner.kind,
        ...(owner.method === null ? {} : { method: owner.method.slice(0, 100) }),
        ...(owner.id === null ? {} : { id: owner.id }),
        ...(owner.sessionId === null ? {} : { sessionId: owner.sessionId }),
      });
      return standInLine(owner, bytes, MAX_MESSAGE_BYTES, nonce);
    };
    const input = guardStdout(child.stdout, budget, { onReject: reject, onOversized: oversized }, MAX_MESSAGE_BYTES);
    const connection = app.connect(
      interceptUpdates(sdk.ndJsonStream(output, input, { maxMessageBytes: MAX_MESSAGE_BYTES }), handlers, budget, reject, nonce, wedge, new PermissionBudget()),
    );
    // The wedge rule's question: any answer, "method not found" included, shows the child reads.
    askLiveness = () =>
      void connection.agent.request(LIVENESS_METHOD, {}, { cancellationSignal: AbortSignal.timeout(WEDGE_SILENCE_MS), stopWaitingOnCancel: true }).catch(() => {});
    // The channel is dead when the process is, even if the pipe lingers (e.g. a grandchild holds it).
    void child.exited.then(() => connection.close(new Error("agent process exited")));

    const timeout = AbortSignal.timeout(options.initTimeoutMs);
    let init: unknown;
    try {
      init = await connection.agent.request(
        sdk.methods.agent.initialize,
        {
          protocolVersion: sdk.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "svc", version: options.clientVersion },
        },
        { cancellationSignal: AbortSignal.any([timeout, options.signal]), stopWaitingOnCancel: true },
      );
    } catch (err) {
      connection.close();
      if (options.signal.aborted) throw new ShuttingDownError();
      if (timeout.aborted) throw initTimeoutError(options.initTimeoutMs);
      const rpc = rpcError(err);
      const dropped = rpc === null ? null : droppedAnswer(rpc.data, nonce);
      if (dropped !== null) throw AgentStartError.outputRejected(tooLarge("initialize answer", dropped.bytes, dropped.limit), null, "channel.initialize");
      if (rpc !== null) throw AgentStartError.refused(rpc.code, rpc.message, options.secrets);
      throw toDaemonError(err, "initialize", options.secrets, rejected, nonce);
    }
    const problem = initializeResultProblem(init);
    if (problem !== null) {
      connection.close();
      throw AgentStartError.invalidResult(problem);
    }
    return new AcpChannel(connection, init as acp.InitializeResponse, options.logger, options.secrets, () => rejected, nonce, wedge, () => cutOff);
  }

  get live(): boolean {
    return !this.isClosed;
  }

  get agentName(): string {
    return this.init.agentInfo?.name ?? "";
  }

  /** Sends a request; errors come back as DaemonErrors (agent errors keep their JSON-RPC code). */
  async request<T = unknown>(method: string, params: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.isClosed) throw new ChannelClosedError(this.closeReason);
    const signals = [options.signal, options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs)].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    const cancellationSignal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const sentAt = this.wedge.sent();
    try {
      return await this.connection.agent.request<T>(method, params, cancellationSignal ? { cancellationSignal, stopWaitingOnCancel: true } : undefined);
    } catch (err) {
      if (options.timeoutMs !== undefined && cancellationSignal?.aborted && !options.signal?.aborted) {
        if (options.bestEffort !== true) this.wedge.timedOut(method, sentAt);
        throw requestTimeoutError(method, options.timeoutMs);
      }
      throw toDaemonError(err, method, this.secrets, this.rejection(), this.nonce);
    }
  }

  async notify(method: string, params: unknown): Promise<void> {
    if (this.isClosed) return;
    try {
      await this.connection.agent.notify(method, params);
    } catch (err) {
      this.logger.debug("notify failed", { method, error: String(err) });
    }
  }

  close(reason = "closed by the daemon"): void {
    this.closeReason = reason;
    this.connection.close(new Error(reason));
  }
}
