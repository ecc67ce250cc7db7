/**
 * Runtime MCP servers (`svc/control/workspace/mcp/runtime-add|remove`, the reference agent's
 * `qwen/control/workspace/mcp/runtime-add|remove`): servers a client adds to the running agent
 * through the daemon (`POST /workspace/mcp/servers`), held in memory for the agent's life and never
 * written anywhere. One serves every session of the agent, like a declared one; it stands over a
 * declared server of the same name (`shadowedSettings`) until removed, and every reload keeps it.
 * They are added only while the workspace is trusted (the daemon checks), and a revocation drops them.
 *
 * A runtime declaration is `{command, args?, description?}` or `{url|httpUrl, description?}`, read
 * by the settings files' own parser (absolute command, http(s) URL). It takes no `env`, `cwd` or
 * `headers`: the reference agent drops those of a runtime server; this agent refuses them, so the
 * caller learns the server would not get them.
 *
 * Errors are the reference agent's: `-32602` for malformed params, `-32099` with `errorKind`
 * `invalid_config` (a bad declaration, the name of a declared server `mcp.excluded` disables, too many runtime servers),
 * `mcp_budget_would_exceed` (an `enforce` budget is full) or `mcp_server_spawn_failed` (it did not
 * connect). Past a `warn` budget the add is skipped (`budget_warning_only`), as the reference's is.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mcpServersOf, type McpServerConfig } from "../../config/mcp-settings.ts";
import type { McpServers } from "./mcp-servers.ts";
import { checkCwd } from "../status-methods.ts";

/** Most servers added at runtime (the declared ones have their own bound, MAX_MCP_SERVERS). */
export const MAX_RUNTIME_SERVERS = 32;
const NAME = /^[A-Za-z0-9_-]{1,32}$/;
const RUNTIME_MEMBERS = new Set(["command", "args", "url", "httpUrl", "description"]);
const MAX_CLIENT_ID_CHARS = 128;

interface RuntimeRequest {
  readonly cwd?: string;
  readonly name: string;
  readonly originatorClientId: string;
}

const invalidConfig = (name: string, reason: string) =>
  new acp.RequestError(-32099, `Invalid MCP server config for '${name}': ${reason}`, { errorKind: "invalid_config", serverName: name, reason });

const requestParams: acp.ParamsParser<RuntimeRequest> = (params) => {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.name !== "string" || !NAME.test(p.name)) throw acp.RequestError.invalidParams({ field: "name" }, "name must be 1-32 letters, digits, '_' or '-'");
  if (p.cwd !== undefined && typeof p.cwd !== "string") throw acp.RequestError.invalidParams({ field: "cwd" }, "cwd must be a string");
  const client = p.originatorClientId;
  const originatorClientId = typeof client === "string" && client !== "" && client.length <= MAX_CLIENT_ID_CHARS ? client : "daemon";
  return { name: p.name, originatorClientId, ...(typeof p.cwd === "string" ? { cwd: p.cwd } : {}) };
};

const addParams: acp.ParamsParser<RuntimeRequest & { readonly config: Record<string, unknown> }> = (params) => {
  const request = requestParams(params);
  const config = (params as Record<string, unknown>).config;
  if (config === null || typeof config !== "object" || Array.isArray(config)) throw acp.RequestError.invalidParams({ field: "config" }, "Invalid or missing config");
  return { ...request, config: config as Record<string, unknown> };
};

/** `raw` as a server declaration of `name`, or `invalid_config` saying what is wrong. */
function parseRuntimeServer(name: string, raw: Record<string, unknown>): McpServerConfig {
  const extra = Object.keys(raw).find((k) => !RUNTIME_MEMBERS.has(k));
  if (extra !== undefined) throw invalidConfig(name, `a runtime server takes only command, args, url, httpUrl and description (not ${JSON.stringify(extra.slice(0, 64))}); declare it in the settings instead`);
  const warnings: string[] = [];
  const [server] = mcpServersOf("config", { mcpServers: { [name]: raw } }, warnings);
  if (!server) throw invalidConfig(name, warnings[0] ?? "unusable declaration");
  return server;
}

export interface RuntimeServerDeps {
  readonly mcp: McpServers;
  readonly workspace: string;
  /** The declared servers in force (settings and extensions), read anew. */
  readonly declared: () => McpServerConfig[];
  /** Whether the workspace is trusted now (runtime servers are added only then). */
  readonly trusted: () => boolean;
  /** Lets MCP budget events reach the client. */
  readonly attach: (client: acp.AgentContext) => void;
}

export class RuntimeMcpServers {
  private readonly added = new Map<string, McpServerConfig>();

  /** `declared` with the runtime servers over those of their names, the others after them. */
  over(declared: readonly McpServerConfig[]): McpServerConfig[] {
    // A name the settings exclude stays excluded, as an add of it is refused.
    const out = declared.map((s) => (s.disabled === true ? s : (this.added.get(s.name) ?? s)));
    const names = new Set(declared.map((s) => s.name));
    for (const server of this.added.values()) if (!names.has(server.name)) out.push(server);
    return out;
  }

  /** Forgets every runtime server (trust was revoked: they were added under it); the next reload stops them. */
  clear(): void {
    this.added.clear();
  }

  register(app: acp.AgentApp, deps: RuntimeServerDeps): void {
    app
      .onRequest("svc/control/workspace/mcp/runtime-add", addParams, async ({ params, client }) => {
        if (params.cwd !== undefined) checkCwd(params.cwd, deps.workspace);
        deps.attach(client);
        const { name } = params;
        const server = parseRuntimeServer(name, params.config);
        const declared = deps.declared().find((s) => s.name === name);
        if (declared?.disabled === true) throw invalidConfig(name, `server '${name}' is in mcp.excluded and cannot be added at runtime`);
        if (!this.added.has(name) && this.added.size >= MAX_RUNTIME_SERVERS) throw invalidConfig(name, `at most ${MAX_RUNTIME_SERVERS} servers are added at runtime; remove one first`);
        if (!deps.trusted()) throw invalidConfig(name, "the workspace is not trusted");
        const previous = this.added.get(name);
        this.added.set(name, server);
        const outcome = await deps.mcp.put(server);
        // A failed add puts back what it replaced, unless a remove, another add or a trust
        // revocation changed the name meanwhile: theirs is the later word.
        if (outcome.kind !== "connected" && this.added.get(name) === server) {
          if (previous) this.added.set(name, previous);
          else this.added.delete(name);
        }
        switch (outcome.kind) {
          case "refused":
            throw new acp.RequestError(-32099, `Adding '${name}' would exceed workspace MCP budget`, { errorKind: "mcp_budget_would_exceed", serverName: name });
          case "over_budget":
            return { name, skipped: true, reason: "budget_warning_only" };
          case "failed":
            throw new acp.RequestError(-32099, `Failed to spawn MCP server '${name}': ${outcome.error}`, { errorKind: "mcp_server_spawn_failed", serverName: name, timeout: /timed? ?out/i.test(outcome.error) });
          case "connected":
            return { name, transport: server.transport, replaced: outcome.replaced, shadowedSettings: declared !== undefined, toolCount: outcome.toolCount, originatorClientId: params.originatorClientId };
        }
      })
      .onRequest("svc/control/workspace/mcp/runtime-remove", requestParams, async ({ params, client }) => {
        if (params.cwd !== undefined) checkCwd(params.cwd, deps.workspace);
        deps.attach(client);
        const { name } = params;
        if (!this.added.delete(name)) return { name, skipped: true, reason: "not_present" };
        const declared = deps.declared().find((s) => s.name === name);
        await deps.mcp.drop(name, declared);
        return { name, removed: true, wasShadowingSettings: declared !== undefined, originatorClientId: params.originatorClientId };
      });
  }
}
