/**
 * The built-in agent driven line by line, without an SDK client: the test writes raw NDJSON and
 * reads every message the agent writes, in order, as parsed JSON (`await using a = await rawAgent()`).
 * Runs `<bun> [bunArgs] src/main.ts --acp`, or the compiled binary when the test target is the
 * binary (see `test-target.ts`) and no `bunArgs` are given. Disposing closes stdin, waits for the
 * exit (SIGKILL after a bound) and removes the temp dirs.
 */
import type { Subprocess } from "bun";
import { realpathSync } from "node:fs";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { MAIN_TS } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { testTarget } from "../helpers/test-target.ts";
import { until } from "../helpers/until.ts";
import { MODEL_ENV } from "./agent-client.ts";

export type Message = Record<string, unknown>;

export interface RawAgent extends AsyncDisposable {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  readonly workspace: string;
  readonly model: MockModel;
  /** Every message the agent wrote, in order. */
  readonly messages: Message[];
  /** Writes raw text to the agent's stdin. */
  write(text: string): Promise<void>;
  /** Writes one JSON-RPC request and waits for its answer. */
  request(id: number | string, method: string, params?: unknown): Promise<Message>;
  /** Waits for the answer to `id`. */
  answer(id: number | string): Promise<Message>;
  /** Closes stdin and waits for the exit code. */
  close(): Promise<number>;
  stderr(): string;
}

export async function rawAgent(options: { bunArgs?: string[]; extraEnv?: Record<string, string> } = {}): Promise<RawAgent> {
  const ws = tempDir("svc-raw-agent-ws-");
  const home = tempDir("svc-raw-agent-home-");
  const model = startMockModel();
  const target = testTarget();
  const command = target.kind === "binary" && !options.bunArgs ? [target.path] : [process.execPath, ...(options.bunArgs ?? []), MAIN_TS];
  const proc = Bun.spawn([...command, "--acp", "--workspace-trust", "trusted"], {
    cwd: ws.path,
    env: { PATH: process.env.PATH ?? "", SVC_HOME: home.path, ...MODEL_ENV(model), ...options.extraEnv },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const messages: Message[] = [];
  let stderr = "";
  const decoder = new TextDecoder();
  void proc.stderr.pipeTo(new WritableStream({ write: (chunk) => void (stderr += decoder.decode(chunk, { stream: true })) }));
  let buffered = "";
  void proc.stdout.pipeTo(
    new WritableStream({
      write(chunk) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          messages.push(JSON.parse(buffered.slice(0, nl)) as Message);
          buffered = buffered.slice(nl + 1);
        }
      },
    }),
  );
  const write = async (text: string) => {
    proc.stdin.write(text);
    await proc.stdin.flush();
  };
  const answer = (id: number | string) => until(() => messages.find((m) => m.id === id && !("method" in m)), 10_000, `the answer to ${id}`);
  const close = async () => {
    try {
      await proc.stdin.end();
    } catch {
      // already closed
    }
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    const code = await proc.exited;
    clearTimeout(timer);
    return code;
  };
  return {
    proc,
    workspace: realpathSync(ws.path),
    model,
    messages,
    write,
    answer,
    async request(id, method, params) {
      await write(`${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`);
      return answer(id);
    },
    close,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await close();
      await model[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}
