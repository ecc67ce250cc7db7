/**
 * The MCP servers of the host's settings, connected once per agent process through
 * `@modelcontextprotocol/sdk`'s client: stdio servers run as children of the agent (so the daemon's
 * group kill reaches them), streamable HTTP servers by URL. Discovery starts on the first prompt or
 * on `svc/control/workspace/mcp/initialize`, whichever comes first; a reload closes every server
 * and runs discovery again with the declarations read anew; a restart reconnects one server. A
 * server that fails to start or to list its tools is marked failed and left out; the others serve.
 * A connected server whose connection closes (it exited, crashed, or its transport broke)
 * is marked disconnected at once: its tools are no longer offered, its slot is released, and it is
 * connected again on the next prompt (or by a reload or restart).
 *
 * A server added at runtime (`put`) replaces the one of its name, or joins the list, and connects at
 * once; `drop` disconnects one (and connects what it stood over). Both run after any pass, reload or
 * other such change, one at a time.
 *
 * The client budget (see `mcp-budget.ts`) reserves a slot per server in declaration order before
 * it connects; `enforce` refuses a server when no slot is left (`budget_exhausted`), `warn`
 * connects it anyway and says so on stderr, `off` ignores the budget.
 *
 * What a server sends is bounded in bytes: a stdio server's message by the SDK's read buffer
 * (10 MiB, past which the SDK closes the connection), a streamable HTTP server's by the bounded
 * fetch its transport reads through (`bounded-fetch.ts`): one JSON body or one event of its event
 * streams over MCP_MESSAGE_BYTES, or an error body past MCP_ERROR_BODY_BYTES, is not read further.
 * A server that sent a message over the bound is disconnected as a stdio server would be; a call
 * it was answering fails saying why.
 *
 * The MCP SDK is imported only when a server is to be connected: an agent without MCP servers
 * never loads it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpBudget, McpServerConfig } from "../../config/agent-config.ts";
import { VERSION } from "../../version.ts";
import { boundedFetch, type FetchBounds, type ResponseOverflow } from "../bounded-fetch.ts";
import { killMarked, markerEnv, newMarker } from "../marked-processes.ts";
import { McpBudgetSlots, type McpBudgetEvent } from "./mcp-budget.ts";
import { outputValidator } from "./output-validator.ts";

/** How long one server gets to connect and list its tools. */
export const MCP_DISCOVERY_TIMEOUT_MS = 10_000;
/** How long one tool call may run (cancel ends it sooner). */
export const MCP_CALL_TIMEOUT_MS = 300_000;
/** Messages a server may send that are not JSON-RPC before it is stopped (a program flooding stdout). */
export const MAX_JUNK_MESSAGES = 1000;
/** Errors of one server written to stderr; the rest are counted only. */
const MAX_LOGGED_ERRORS = 20;
/** Tools taken from one server; the rest are left out. */
export const MAX_TOOLS_PER_SERVER = 128;
/** One message from a streamable HTTP server: the MCP SDK's bound on a stdio server's (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const MCP_MESSAGE_BYTES = 10 * 1024 * 1024;
/** The part of a streamable HTTP server's error body read (for its message); the rest is never read. */
export const MCP_ERROR_BODY_BYTES = 64 * 1024;
/** No bound on a whole response: the server's event stream lives as long as the connection, each event bounded. */
const MCP_FETCH_BOUNDS: FetchBounds = { eventBytes: MCP_MESSAGE_BYTES, responseBytes: Number.POSITIVE_INFINITY, errorBodyBytes: MCP_ERROR_BODY_BYTES };

export interface McpToolInfo {
  readonly server: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** Where one server stands: not tried yet, connecting, connected, failed, refused by the budget, dropped after connecting, or disabled by the settings (`mcp.excluded`, never connected). */
export type McpPhase = "pending" | "connecting" | "connected" | "failed" | "refused" | "disconnected" | "disabled";

export interface McpServerState {
  readonly config: McpServerConfig;
  readonly phase: McpPhase;
  /** Why it failed (the connection's error), for stderr and the model. */
  readonly error?: string;
  readonly tools: readonly McpToolInfo[];
}

export type DiscoveryState = "not_started" | "in_progress" | "completed";

/** What a restart did; a refusal is an answer, not an error (the reference agent's shape). */
export type RestartOutcome =
  | { readonly kind: "restarted"; readonly durationMs: number }
  | { readonly kind: "skipped"; readonly reason: "budget_would_exceed" | "in_flight" | "disabled" }
  | { readonly kind: "failed"; readonly error: string }
  | { readonly kind: "unknown" };

/** What adding a server at runtime did: connected (with its tool count), refused by an `enforce` budget, past a `warn` budget (not connected, as the reference), or failed to connect. */
export type PutOutcome =
  | { readonly kind: "connected"; readonly replaced: boolean; readonly toolCount: number }
  | { readonly kind: "refused" }
  | { readonly kind: "over_budget" }
  | { readonly kind: "failed"; readonly error: string };

export interface McpCallResult {
  readonly text: string;
  readonly isError: boolean;
}

interface Entry {
  readonly config: McpServerConfig;
  phase: McpPhase;
  error?: string;
  tools: McpToolInfo[];
  client?: Client;
  /** The marker of the running stdio server's processes (see `marked-processes.ts`). */
  marker?: string;
}

/** A declared server's entry: pending (connected by the next pass), or disabled for good. */
const entryOf = (config: McpServerConfig): Entry => ({ config, phase: config.disabled === true ? "disabled" : "pending", tools: [] });

export class McpServers {
  private entries: Entry[];
  /** The running (or last) discovery pass; passes and reloads run one after another. */
  private pass: Promise<void> | null = null;
  private running = false;
  /** The reload waiting for its turn, if any: later reloads change its list instead of queuing. */
  private queuedReload: { servers: readonly McpServerConfig[] } | null = null;
  private readonly slots: McpBudgetSlots;

  constructor(
    servers: readonly McpServerConfig[],
    /** The environment stdio servers start with (the agent's, minus the scrub list: `config/secret-names.ts`), under each server's own `env`. */
    private readonly env: Readonly<Record<string, string>>,
    readonly budget: McpBudget,
    /** Told of every budget warning and refused batch. */
    onBudgetEvent: (event: McpBudgetEvent) => void,
  ) {
    this.entries = servers.map(entryOf);
    this.slots = new McpBudgetSlots(budget, onBudgetEvent);
  }

  get discoveryState(): DiscoveryState {
    return this.running ? "in_progress" : this.pass === null ? "not_started" : "completed";
  }

  /** Starts discovery unless it was started before; true when this call started it. */
  start(): boolean {
    if (this.pass !== null) return false;
    this.pass = this.runPass();
    return true;
  }

  /** Discovery, started if needed, and finished (the first prompt waits for it); servers dropped since are reconnected. */
  async discover(): Promise<void> {
    this.start();
    await this.pass;
    if (this.entries.some((e) => e.phase === "disconnected")) await this.serialized(() => this.reconnectDropped());
  }

  /** Connects again the servers whose connection dropped (each takes a slot again). */
  private async reconnectDropped(): Promise<void> {
    const connecting: Promise<void>[] = [];
    for (const entry of this.entries) {
      if (entry.phase !== "disconnected") continue;
      if (this.slots.reserve(entry.config.name) === "refused") entry.phase = "refused";
      else connecting.push(this.connect(entry));
    }
    await Promise.all(connecting);
  }

  /** The connection of a connected server closed or failed: it is dropped until reconnected. */
  private dropped(entry: Entry, client: Client, why: string): void {
    if (entry.client !== client) return; // a deliberate disconnect, or an older connection
    delete entry.client;
    Object.assign(entry, { phase: "disconnected", error: why, tools: [] });
    this.slots.release(entry.config.name);
    process.stderr.write(`svc --acp: MCP server ${entry.config.name} disconnected: ${why}; it reconnects on the next prompt\n`);
    void client.close().catch(() => {});
    this.killProcesses(entry);
  }

  /** A connected server sent a message over the bound: it is dropped (a call it was answering fails, see `call`). */
  private overflowed(entry: Entry, client: Client, overflow: ResponseOverflow): void {
    this.dropped(entry, client, `it sent a message over the limit: ${overflow.message}`);
  }

  /** Kills what is left of a stdio server's processes (it is no longer used). */
  private killProcesses(entry: Entry): void {
    if (entry.marker === undefined) return;
    killMarked(entry.marker);
    delete entry.marker;
  }

  /**
   * Closes every server and discovers `servers` (the declarations read anew), after any running
   * pass. Before discovery has started the list is only replaced (the first pass reads it). Reloads
   * asked while one waits its turn are one reload, of the latest list: a storm of settings writes
   * reconnects once, not once per write.
   */
  reload(servers: readonly McpServerConfig[]): void {
    if (this.pass === null) {
      this.entries = servers.map(entryOf);
      return;
    }
    if (this.queuedReload) {
      this.queuedReload.servers = servers;
      return;
    }
    const queued = (this.queuedReload = { servers });
    this.pass = this.pass.then(async () => {
      // From here on, a reload asked queues behind this one (it may read settings this one missed).
      this.queuedReload = null;
      this.running = true;
      await this.closeAll();
      this.entries = queued.servers.map(entryOf);
      await this.runPass();
    }).catch((err: unknown) => {
      this.running = false;
      process.stderr.write(`svc --acp: MCP reload failed: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  }

  /** One pass over the pending servers: slots reserved in declaration order, then all connect at once. */
  private async runPass(): Promise<void> {
    this.running = true;
    try {
      const refused: Entry[] = [];
      const connecting: Promise<void>[] = [];
      for (const entry of this.entries) {
        if (entry.phase !== "pending") continue;
        const slot = this.slots.reserve(entry.config.name);
        if (slot === "refused") {
          entry.phase = "refused";
          refused.push(entry);
          continue;
        }
        if (slot === "over") process.stderr.write(`svc --acp: MCP server ${entry.config.name} exceeds the client budget of ${this.budget.limit} (warn mode: connecting anyway)\n`);
        connecting.push(this.connect(entry));
      }
      await Promise.all(connecting);
      this.slots.refusedBatch(refused.map((e) => ({ name: e.config.name, transport: e.config.transport })));
    } finally {
      this.running = false;
    }
  }

  private async connect(entry: Entry): Promise<void> {
    entry.phase = "connecting";
    const server = entry.config;
    const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }, jsonSchemaValidator] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      outputValidator(),
    ]);
    const client = new Client({ name: "svc", version: VERSION }, { jsonSchemaValidator });
    try {
      const transport =
        server.transport === "stdio"
          ? new StdioClientTransport({
              command: server.command,
              args: [...server.args],
              env: { ...this.env, ...server.env, ...markerEnv((entry.marker = newMarker())) },
              ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
              stderr: "inherit",
            })
          : new StreamableHTTPClientTransport(new URL(server.url), {
              fetch: boundedFetch(MCP_FETCH_BOUNDS, { onOverflow: (overflow) => this.overflowed(entry, client, overflow) }),
              ...(server.headers === undefined ? {} : { requestInit: { headers: { ...server.headers } } }),
            });
      // A server writing what is not JSON-RPC (a program that floods stdout) fails each line; past
      // MAX_JUNK_MESSAGES its transport is closed (and the process stopped) rather than parsed forever.
      let junk = 0;
      client.onerror = (err) => {
        if (++junk === MAX_JUNK_MESSAGES) {
          process.stderr.write(`svc --acp: MCP server ${server.name} sent ${MAX_JUNK_MESSAGES} messages that are not JSON-RPC; it is stopped\n`);
          // Killed at once: the transport's own close waits on timers a flood can starve.
          this.killProcesses(entry);
          void transport.close().catch(() => {});
        } else if (junk < MAX_LOGGED_ERRORS) process.stderr.write(`svc --acp: MCP server ${server.name}: ${err.message}\n`);
      };
      await client.connect(transport, { timeout: MCP_DISCOVERY_TIMEOUT_MS });
      const listed = await client.listTools(undefined, { timeout: MCP_DISCOVERY_TIMEOUT_MS });
      entry.tools = listed.tools.slice(0, MAX_TOOLS_PER_SERVER).map((t) => ({ server: server.name, name: t.name, description: t.description ?? "", inputSchema: t.inputSchema as Record<string, unknown> }));
      entry.client = client;
      entry.phase = "connected";
      delete entry.error;
      // An error alone (a junk stdout line, a dropped HTTP event stream the SDK resumes) is not the
      // end of the connection: it is reported (the first few); a fatal one closes the transport, and
      // onclose drops it; so does a flood of junk (above).
      client.onclose = () => this.dropped(entry, client, "the server closed the connection");
    } catch (err) {
      await client.close().catch(() => {});
      // A server that hung (or ignores SIGTERM) and whatever it started go too.
      this.killProcesses(entry);
      const error = err instanceof Error ? err.message : String(err);
      process.stderr.write(`svc --acp: MCP server ${server.name} is unavailable: ${error}\n`);
      Object.assign(entry, { phase: "failed", error, tools: [] });
      this.slots.release(server.name);
    }
  }

  /** Runs `change` after any running pass or change, as one of them (`discoveryState` says `in_progress`). */
  private serialized<T>(change: () => Promise<T>): Promise<T> {
    // Discovery of the declared servers comes first, as it would on the first prompt.
    this.start();
    const run = (this.pass ?? Promise.resolve()).then(async () => {
      this.running = true;
      try {
        return await change();
      } finally {
        this.running = false;
      }
    });
    this.pass = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /**
   * Adds `config` (replacing the server of its name, which is disconnected first) and connects it
   * now. A server the budget refuses, or one that fails to connect, is taken out again and what it
   * replaced is put back, to reconnect on the next prompt.
   */
  put(config: McpServerConfig): Promise<PutOutcome> {
    return this.serialized(async () => {
      const index = this.entries.findIndex((e) => e.config.name === config.name);
      const previous = index === -1 ? undefined : this.entries[index]!;
      if (previous) await this.disconnect(previous);
      const entry = entryOf(config);
      const restore = () => {
        if (previous) this.entries[index] = { config: previous.config, phase: previous.phase === "disabled" ? "disabled" : "disconnected", tools: [] };
        else this.entries = this.entries.filter((e) => e !== entry);
      };
      if (index === -1) this.entries.push(entry);
      else this.entries[index] = entry;
      const slot = this.slots.reserve(config.name);
      if (slot !== "granted") {
        if (slot === "over") this.slots.release(config.name);
        restore();
        return { kind: slot === "refused" ? "refused" : "over_budget" };
      }
      await this.connect(entry);
      if (entry.phase !== "connected") {
        restore();
        return { kind: "failed", error: entry.error ?? "did not connect" };
      }
      return { kind: "connected", replaced: previous !== undefined, toolCount: entry.tools.length };
    });
  }

  /** Disconnects server `name` and takes it out; `replacement` (what it stood over) takes its place and connects. */
  drop(name: string, replacement: McpServerConfig | undefined): Promise<void> {
    return this.serialized(async () => {
      const index = this.entries.findIndex((e) => e.config.name === name);
      if (index === -1) return;
      await this.disconnect(this.entries[index]!);
      if (!replacement) {
        this.entries.splice(index, 1);
        return;
      }
      const entry = (this.entries[index] = entryOf(replacement));
      if (entry.phase === "disabled") return;
      if (this.slots.reserve(name) === "refused") entry.phase = "refused";
      else await this.connect(entry);
    });
  }

  /** Reconnects one server: its connection (if any) is closed and it takes a slot again. */
  async restart(name: string): Promise<RestartOutcome> {
    const found = this.entries.find((e) => e.config.name === name);
    if (!found) return { kind: "unknown" };
    if (found.phase === "disabled") return { kind: "skipped", reason: "disabled" };
    if (this.running || found.phase === "connecting") return { kind: "skipped", reason: "in_flight" };
    // One change at a time: a runtime add or remove (or another restart) cannot swap the entry mid-way.
    return this.serialized(async () => {
      const entry = this.entries.find((e) => e.config.name === name);
      if (!entry) return { kind: "unknown" };
      if (entry.phase === "disabled") return { kind: "skipped", reason: "disabled" };
      return await this.reconnect(entry);
    });
  }

  private async reconnect(entry: Entry): Promise<RestartOutcome> {
    const name = entry.config.name;
    const started = performance.now();
    await this.disconnect(entry);
    const slot = this.slots.reserve(name);
    if (slot === "refused") {
      entry.phase = "refused";
      return { kind: "skipped", reason: "budget_would_exceed" };
    }
    await this.connect(entry);
    if (entry.phase !== "connected") return { kind: "failed", error: entry.error ?? "did not connect" };
    return { kind: "restarted", durationMs: Math.round(performance.now() - started) };
  }

  private async disconnect(entry: Entry): Promise<void> {
    const client = entry.client;
    delete entry.client;
    entry.tools = [];
    this.slots.release(entry.config.name);
    entry.phase = "pending";
    await client?.close().catch(() => {});
    this.killProcesses(entry);
  }

  tools(): McpToolInfo[] {
    return this.entries.flatMap((e) => (e.phase === "connected" ? e.tools : []));
  }

  status(): readonly McpServerState[] {
    return this.entries;
  }

  /** Servers holding a slot (connecting or connected), and those connected. */
  counts(): { reserved: number; live: number } {
    return { reserved: this.slots.reserved, live: this.entries.filter((e) => e.phase === "connected").length };
  }

  async call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const entry = this.entries.find((e) => e.config.name === server && e.phase === "connected");
    const client = entry?.client;
    if (!entry || !client) throw new Error(`MCP server ${server} is not connected`);
    let result;
    try {
      result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: MCP_CALL_TIMEOUT_MS });
    } catch (err) {
      // Dropped meanwhile (it died, or sent too much): the reason, rather than the SDK's "Connection closed".
      if (entry.client !== client && entry.phase === "disconnected") throw new Error(`MCP server ${server} disconnected during the call: ${entry.error}; it reconnects on the next prompt`);
      throw err;
    }
    const parts = (result.content ?? []) as Array<{ type: string; text?: string }>;
    const text = parts.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type} content]`)).join("\n");
    return { text, isError: result.isError === true };
  }

  /** Closes every connection (stdio servers get their stdin closed and are stopped); a reload's first step. */
  private async closeAll(): Promise<void> {
    await Promise.all(this.entries.map((e) => this.disconnect(e)));
  }
}
