/**
 * Starts the built-in agent (`<bun> src/main.ts --acp`, or `<binary> --acp` when the test target is
 * the compiled binary, see `test-target.ts`) in a temp workspace with a mock model, and
 * connects a real SDK client to it: `await using a = await startAgent()`. Disposing closes the
 * agent's stdin, waits for it to exit (SIGKILL after a bound) and removes the workspace.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { Subprocess } from "bun";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel, type MockModelOptions } from "../fixtures/mock-model.ts";
import { MAIN_TS } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { testTarget } from "../helpers/test-target.ts";
import { until } from "../helpers/until.ts";

export interface AgentOptions {
  /** Replaces the model variables (default: OPENAI_* pointing at the mock). */
  env?: Record<string, string | undefined>;
  /** Added on top of the model variables. */
  extraEnv?: Record<string, string>;
  /** Written to `<workspace>/.svc/settings.json`. */
  workspaceSettings?: unknown;
  /**
   * `--workspace-trust trusted|untrusted`, the daemon's decision as it passes it. Without it the
   * agent decides from the trust store, which the test's SVC_HOME does not have: untrusted.
   */
  trusted?: boolean;
  /** `--approval-mode`, as the daemon passes it (in an untrusted workspace only plan and default hold). */
  approvalMode?: "plan" | "default" | "auto-edit" | "auto" | "yolo";
  /** Files to create in the workspace (relative path → content). */
  files?: Record<string, string>;
  /** Use this workspace (kept on dispose) instead of a fresh temp dir. */
  workspace?: string;
  /** Host settings (`$SVC_HOME/settings.json`, in a fresh SVC_HOME removed on dispose), made knowing the mock model; `env` then defaults to none of the model variables. */
  hostSettings?: (model: MockModel) => unknown;
  /** How the mock model behaves (`startMockModel`'s options). */
  modelOptions?: MockModelOptions;
  /** Files to create in that SVC_HOME (name → content), with `hostSettings`. */
  homeFiles?: Record<string, string>;
}

export interface AgentHandle extends AsyncDisposable {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  readonly agent: acp.ClientContext;
  readonly model: MockModel;
  readonly workspace: string;
  readonly updates: acp.SessionNotification[];
  readonly permissionRequests: acp.RequestPermissionRequest[];
  /** `svc/notify/session/mcp-budget-event` notifications received, in order. */
  readonly budgetEvents: Array<Record<string, unknown>>;
  /** How to answer permission asks (default: `proceed_once`). */
  onPermission: (request: acp.RequestPermissionRequest) => acp.RequestPermissionOutcome | Promise<acp.RequestPermissionOutcome>;
  stderr(): string;
  initialize(): Promise<acp.InitializeResponse>;
  newSession(): Promise<SessionState>;
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
  updatesOf(sessionId: string): acp.SessionUpdate[];
  /** Waits until an update of the session satisfies `match`, and returns it. */
  waitForUpdate(sessionId: string, match: (u: acp.SessionUpdate) => boolean, what?: string): Promise<acp.SessionUpdate>;
  agentText(sessionId: string): string;
  /**
   * A whole prompt turn: the response and the updates it produced, once the last one (the usage
   * chunk that ends every turn) has been received (the client may see the response first).
   */
  turn(sessionId: string, text: string): Promise<{ response: acp.PromptResponse; updates: acp.SessionUpdate[] }>;
}

const isUsageChunk = (u: acp.SessionUpdate) => u.sessionUpdate === "agent_message_chunk" && u._meta?.usage !== undefined;

/** `session/new`'s answer with the (unstable) model state the agent reports. */
export type SessionState = acp.NewSessionResponse & { models?: { currentModelId: string; availableModels: Array<{ modelId: string; name: string }> } };

export const MODEL_ENV = (model: MockModel) => ({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" });

export async function startAgent(options: AgentOptions = {}): Promise<AgentHandle> {
  const dir = options.workspace ? { path: options.workspace, [Symbol.asyncDispose]: async () => {} } : tempDir("svc-agent-ws-");
  const model = startMockModel(options.modelOptions);
  if (options.workspaceSettings !== undefined) {
    mkdirSync(join(dir.path, ".svc"), { recursive: true });
    writeFileSync(join(dir.path, ".svc", "settings.json"), JSON.stringify(options.workspaceSettings));
  }
  for (const [path, content] of Object.entries(options.files ?? {})) writeFileSync(join(dir.path, path), content);
  const home = options.hostSettings ? tempDir("svc-agent-home-") : null;
  if (home) writeFileSync(join(home.path, "settings.json"), JSON.stringify(options.hostSettings!(model)));
  for (const [name, content] of Object.entries(home ? (options.homeFiles ?? {}) : {})) writeFileSync(join(home!.path, name), content);
  const target = testTarget();
  const args = [...(options.trusted === undefined ? [] : ["--workspace-trust", options.trusted ? "trusted" : "untrusted"]), ...(options.approvalMode ? ["--approval-mode", options.approvalMode] : [])];
  const proc = Bun.spawn([...(target.kind === "binary" ? [target.path] : [process.execPath, MAIN_TS]), "--acp", ...args], {
    cwd: dir.path,
    env: { ...process.env, ...(home ? { SVC_HOME: home.path } : {}), ...(options.env ?? (home ? {} : MODEL_ENV(model))), ...options.extraEnv },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  void proc.stderr.pipeTo(new WritableStream({ write: (chunk) => void (stderr += decoder.decode(chunk, { stream: true })) }));
  const stdin = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
    close: async () => void (await proc.stdin.end()),
  });
  const updates: acp.SessionNotification[] = [];
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  const budgetEvents: Array<Record<string, unknown>> = [];
  const connection = acp
    .client({ name: "agent-test-client" })
    .onNotification("session/update", ({ params }) => void updates.push(params))
    .onNotification("svc/notify/session/mcp-budget-event", (params: unknown) => params as Record<string, unknown>, ({ params }) => void budgetEvents.push(params))
    .onRequest("session/request_permission", async ({ params }) => {
      permissionRequests.push(params);
      return { outcome: await handle.onPermission(params) };
    })
    .connect(acp.ndJsonStream(stdin, proc.stdout));
  const updatesOf = (sessionId: string) => updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  const handle: AgentHandle = {
    proc,
    agent: connection.agent,
    model,
    workspace: dir.path,
    updates,
    permissionRequests,
    budgetEvents,
    onPermission: () => ({ outcome: "selected", optionId: "proceed_once" }),
    stderr: () => stderr,
    initialize: () => connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }),
    newSession: () => connection.agent.request<SessionState>("session/new", { cwd: dir.path, mcpServers: [] }),
    prompt: (sessionId, text) => connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
    updatesOf,
    waitForUpdate: (sessionId, match, what = "a session update") => until(() => updatesOf(sessionId).find(match), 10_000, what),
    agentText: (sessionId) =>
      updatesOf(sessionId)
        .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
        .join(""),
    async turn(sessionId, text) {
      const before = updatesOf(sessionId).length;
      const usageBefore = updatesOf(sessionId).filter(isUsageChunk).length;
      const response = await handle.prompt(sessionId, text);
      await until(() => updatesOf(sessionId).filter(isUsageChunk).length > usageBefore, 10_000, "the turn's usage chunk");
      return { response, updates: updatesOf(sessionId).slice(before) };
    },
    async [Symbol.asyncDispose]() {
      try {
        await proc.stdin.end();
      } catch {
        // already closed
      }
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await proc.exited;
      clearTimeout(timer);
      connection.close();
      await model[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
      await home?.[Symbol.asyncDispose]();
    },
  };
  await handle.initialize();
  return handle;
}

/** The JSON-RPC error a request failed with; throws if it succeeded. */
export async function rpcError(request: Promise<unknown>): Promise<acp.RequestError> {
  const outcome = await request.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  if ("result" in outcome) throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(outcome.result)}`);
  if (!(outcome.error instanceof acp.RequestError)) throw outcome.error;
  return outcome.error;
}
