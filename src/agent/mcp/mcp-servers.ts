/**
 * The MCP servers of the host's settings, connected once per agent process on first use (the
 * first prompt) through `@modelcontextprotocol/sdk`'s client: stdio servers run as children of the
 * agent (so the daemon's group kill reaches them), streamable HTTP servers by URL. A server that
 * fails to start or to list its tools is marked `error` and left out; the others still serve.
 * The client budget counts servers in declaration order: past it, `enforce` refuses a server
 * (`budget_exhausted`), `warn` connects it and says so on stderr, `off` ignores the budget.
 * The MCP SDK is imported only when a server is to be connected: an agent without MCP servers
 * never loads it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpBudget, McpServerConfig } from "../../config/agent-config.ts";
import { VERSION } from "../../version.ts";

/** How long one server gets to connect and list its tools. */
export const MCP_DISCOVERY_TIMEOUT_MS = 10_000;
/** How long one tool call may run (cancel ends it sooner). */
export const MCP_CALL_TIMEOUT_MS = 300_000;
/** Tools taken from one server; the rest are left out. */
export const MAX_TOOLS_PER_SERVER = 128;

export interface McpToolInfo {
  readonly server: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

export interface McpServerState {
  readonly name: string;
  readonly status: "ok" | "error";
  readonly error?: string;
  readonly errorKind?: "budget_exhausted";
  readonly tools: number;
}

export interface McpCallResult {
  readonly text: string;
  readonly isError: boolean;
}

interface Connected {
  readonly client: Client;
  readonly tools: McpToolInfo[];
}

export class McpServers {
  private discovery: Promise<void> | null = null;
  private readonly connected = new Map<string, Connected>();
  private readonly states: McpServerState[] = [];

  constructor(
    private readonly servers: readonly McpServerConfig[],
    /** The environment stdio servers start with (the agent's, minus model keys), under each server's own `env`. */
    private readonly env: Readonly<Record<string, string>>,
    private readonly budget: McpBudget,
  ) {}

  /** Connects every server once (within the budget); later calls wait for the same discovery. */
  discover(): Promise<void> {
    this.discovery ??= Promise.all(
      this.servers.map((server, index) => {
        const over = this.budget.mode !== "off" && this.budget.limit !== null && index >= this.budget.limit;
        if (over && this.budget.mode === "enforce") {
          this.states.push({ name: server.name, status: "error", errorKind: "budget_exhausted", error: `refused: the MCP client budget is ${this.budget.limit}`, tools: 0 });
          return Promise.resolve();
        }
        if (over) process.stderr.write(`svc --acp: MCP server ${server.name} exceeds the client budget of ${this.budget.limit} (warn mode: connecting anyway)\n`);
        return this.connect(server);
      }),
    ).then(() => {});
    return this.discovery;
  }

  private async connect(server: McpServerConfig): Promise<void> {
    const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    ]);
    const client = new Client({ name: "svc", version: VERSION });
    try {
      const transport =
        server.transport === "stdio"
          ? new StdioClientTransport({ command: server.command, args: [...server.args], env: { ...this.env, ...server.env }, stderr: "inherit" })
          : new StreamableHTTPClientTransport(new URL(server.url));
      await client.connect(transport, { timeout: MCP_DISCOVERY_TIMEOUT_MS });
      const listed = await client.listTools(undefined, { timeout: MCP_DISCOVERY_TIMEOUT_MS });
      const tools = listed.tools.slice(0, MAX_TOOLS_PER_SERVER).map((t) => ({ server: server.name, name: t.name, description: t.description ?? "", inputSchema: t.inputSchema as Record<string, unknown> }));
      this.connected.set(server.name, { client, tools });
      this.states.push({ name: server.name, status: "ok", tools: tools.length });
    } catch (err) {
      await client.close().catch(() => {});
      const error = err instanceof Error ? err.message : String(err);
      process.stderr.write(`svc --acp: MCP server ${server.name} is unavailable: ${error}\n`);
      this.states.push({ name: server.name, status: "error", error, tools: 0 });
    }
  }

  tools(): McpToolInfo[] {
    return [...this.connected.values()].flatMap((c) => c.tools);
  }

  status(): readonly McpServerState[] {
    return this.states;
  }

  async call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const connected = this.connected.get(server);
    if (!connected) throw new Error(`MCP server ${server} is not connected`);
    const result = await connected.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: MCP_CALL_TIMEOUT_MS });
    const parts = (result.content ?? []) as Array<{ type: string; text?: string }>;
    const text = parts.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type} content]`)).join("\n");
    return { text, isError: result.isError === true };
  }

  /** Closes every connection (stdio servers get their stdin closed and are stopped). */
  async close(): Promise<void> {
    await Promise.all([...this.connected.values()].map((c) => c.client.close().catch(() => {})));
  }
}
