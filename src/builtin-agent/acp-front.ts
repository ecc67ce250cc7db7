/**
 * The built-in agent's front: it reads the client's NDJSON JSON-RPC stream and answers `initialize`
 * and a plain `session/new` itself, so an agent that is started and given a session but not
 * prompted never loads the ACP SDK (its generated schemas alone cost ~20 MB resident and ~35 ms of
 * start) nor what the SDK app brings: the tools, the model client, the MCP client. At the first
 * message it does not answer, it loads the SDK app (`agent-app.ts`: this module's dynamic import is
 * the agent's one seam) and hands it the connection: the bytes not handled yet, then the rest of
 * the input, and the same output. From then on every message is the SDK's.
 *
 * The front answers only what the SDK app would answer the same way (a test compares the two):
 * - `initialize` whose `protocolVersion` is an integer 0..65535 (the SDK's schema defaults every
 *   other field it cannot read, and the agent reads none of them);
 * - `session/new` once the front has answered `initialize`, for the agent's workspace, with
 *   `mcpServers` empty (or null), no `additionalDirectories` or `systemPrompt`, while another
 *   session may open.
 * Anything else (another method, a notification, a response, a malformed or unusual message, a
 * line past FRONT_LINE_BYTES) goes to the SDK, which answers it as it always did.
 *
 * The SDK app refuses requests sent before `initialize`. When the front has answered it, the app is
 * first given an `initialize` of the front's own, whose answer is dropped, and the client's bytes
 * follow once that answer is written.
 */
import { initializeResponse, type AgentCore } from "./agent-core.ts";
import type { NotifyTarget } from "./budget-notifier.ts";

/** The longest line the front reads; a longer one (never `initialize` or a plain `session/new`) goes to the SDK with its bytes. */
export const FRONT_LINE_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type JsonRpcId = string | number;
type Request = { id: JsonRpcId; method: string; params: Record<string, unknown> };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A request the front may answer: one JSON object, `jsonrpc: "2.0"`, a string or finite number id, an object for params. */
function plainRequest(line: Uint8Array): Request | null {
  let message: unknown;
  try {
    message = JSON.parse(decoder.decode(line));
  } catch {
    return null;
  }
  if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string" || !isObject(message.params)) return null;
  const id = message.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) return null;
  return { id, method: message.method, params: message.params };
}

/** `initialize` params the SDK's schema takes: only `protocolVersion` can make it refuse them. */
const plainInitialize = (params: Record<string, unknown>) => Number.isInteger(params.protocolVersion) && (params.protocolVersion as number) >= 0 && (params.protocolVersion as number) <= 65535;

/** `session/new` params for the workspace with nothing the front does not handle. */
const plainNewSession = (params: Record<string, unknown>, workspace: string) =>
  params.cwd === workspace &&
  (params.mcpServers === null || (Array.isArray(params.mcpServers) && params.mcpServers.length === 0)) &&
  params.additionalDirectories === undefined &&
  (params.systemPrompt === undefined || params.systemPrompt === null);

/** The agent's output: every write, the front's and the SDK's, in one queue, each a whole message. */
class Output {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private queue: Promise<void> = Promise.resolve();

  constructor(stream: WritableStream<Uint8Array>) {
    this.writer = stream.getWriter();
  }

  write(bytes: Uint8Array): Promise<void> {
    const write = this.queue.then(() => this.writer.write(bytes));
    this.queue = write.catch(() => {});
    return write;
  }

  send(message: Record<string, unknown>): Promise<void> {
    return this.write(encoder.encode(`${JSON.stringify(message)}\n`));
  }
}

/**
 * Serves the connection: the front first, then (if a message needs it) the SDK app. Resolves when
 * the connection is over (the input ended, or the SDK connection closed).
 */
export async function serveConnection(core: AgentCore, stdout: WritableStream<Uint8Array>, stdin: ReadableStream<Uint8Array>): Promise<void> {
  const output = new Output(stdout);
  const client: NotifyTarget = { notify: (method, params) => output.send({ jsonrpc: "2.0", method, params }) };
  const reader = stdin.getReader();
  let pending = new Uint8Array(0);
  let initialized = false;

  /** Answers the line if the front may; false hands it (and all after it) to the SDK. */
  const answer = (line: Uint8Array): boolean => {
    const request = plainRequest(line);
    if (request === null) return false;
    if (request.method === "initialize" && plainInitialize(request.params)) {
      initialized = true;
      void output.send({ jsonrpc: "2.0", id: request.id, result: initializeResponse() }).catch(() => {});
      return true;
    }
    if (request.method === "session/new" && initialized && core.canOpen && plainNewSession(request.params, core.workspace)) {
      const result = core.newSession();
      void output.send({ jsonrpc: "2.0", id: request.id, result }).catch(() => {});
      core.announce(client, result.sessionId);
      return true;
    }
    return false;
  };

  for (;;) {
    const newline = pending.indexOf(NEWLINE);
    if (newline >= 0) {
      if (!answer(pending.subarray(0, newline))) break;
      pending = pending.subarray(newline + 1);
      continue;
    }
    if (pending.byteLength > FRONT_LINE_BYTES) break;
    const { value, done } = await reader.read();
    if (done) {
      // A last line without its newline is the SDK's to read (or to refuse); nothing left ends the connection.
      if (decoder.decode(pending).trim() === "") return;
      break;
    }
    const joined = new Uint8Array(pending.byteLength + value.byteLength);
    joined.set(pending);
    joined.set(value, pending.byteLength);
    pending = joined;
  }
  return handOver(core, output, reader, pending, initialized);
}

/** Loads the SDK app and gives it the connection (see the header); resolves when it closes. */
async function handOver(core: AgentCore, output: Output, reader: ReadableStreamDefaultReader<Uint8Array>, rest: Uint8Array, initialized: boolean): Promise<void> {
  const primerId = `svc-front-${crypto.randomUUID()}`;
  const primer = Promise.withResolvers<void>();
  if (!initialized) primer.resolve();
  let dropping = initialized;
  const sdkOutput = new WritableStream<Uint8Array>({
    write(chunk) {
      if (dropping) {
        // The SDK writes one whole message per chunk; the first it writes answers the primer.
        let message: unknown = null;
        try {
          message = JSON.parse(decoder.decode(chunk));
        } catch {
          // not the primer's answer
        }
        if (isObject(message) && message.id === primerId) {
          dropping = false;
          primer.resolve();
          return;
        }
      }
      return output.write(chunk);
    },
  });
  let restGiven = false;
  const sdkInput = new ReadableStream<Uint8Array>({
    start(controller) {
      if (initialized) controller.enqueue(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: primerId, method: "initialize", params: { protocolVersion: initializeResponse().protocolVersion } })}\n`));
    },
    async pull(controller) {
      if (!restGiven) {
        await primer.promise;
        restGiven = true;
        if (rest.byteLength > 0) {
          controller.enqueue(rest);
          return;
        }
      }
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const { connectApp } = await import("./agent-app.ts");
  return connectApp(core, sdkOutput, sdkInput);
}
