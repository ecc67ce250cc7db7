/**
 * Request and answer schemas of the MCP server management routes (`mcp-config.ts`), in the
 * reference daemon's shapes. The declaration's own checks (members, bounds, absolute command,
 * http(s) URL) are `workspace/mcp-server-settings.ts`', which names the member at fault; the schema
 * here describes it for the OpenAPI document and refuses what is not even an object.
 */
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { SERVER_NAME_PATTERN } from "../../workspace/mcp-server-settings.ts";
import { QualifiedParams } from "./workspace-forms.ts";

const fail = (code: string, message: string) => () => new DaemonError(400, code, message).body();

const serverName = t.String({
  pattern: SERVER_NAME_PATTERN,
  description: "The MCP server's name: 1 to 32 letters, digits, `_` or `-` (the names the built-in agent reads)",
  error: fail("invalid_server_name", "Server name must be 1 to 32 letters, digits, underscores or hyphens, and not __proto__, constructor or prototype"),
});

/** The route's params: the server's name, and the workspace selector on the qualified form. */
export const nameParams = (qualified: boolean) => t.Object({ ...(qualified ? QualifiedParams.properties : {}), name: serverName });
export const serverParams = (qualified: boolean) => t.Object({ ...(qualified ? QualifiedParams.properties : {}), server: serverName });

const secrets = (what: string) => t.Record(t.String(), t.String(), { description: `${what}; every value is a secret, answered as \`__redacted__\` (sent back unchanged, it keeps the stored value)` });

/** One declaration as answered (stored, redacted, known members only) and as sent. */
const declarationMembers = {
  command: t.Optional(t.String({ description: "stdio: the server's executable, an absolute path (PATH is never searched)" })),
  args: t.Optional(t.Array(t.String(), { description: "stdio: its arguments (at most 64)" })),
  env: t.Optional(secrets("stdio: variables set for it")),
  cwd: t.Optional(t.String({ description: "stdio: its working directory, an absolute path" })),
  url: t.Optional(t.String({ description: "streamable HTTP: the server's http(s) URL" })),
  httpUrl: t.Optional(t.String({ description: "streamable HTTP: the server's http(s) URL (the reference's other name)" })),
  headers: t.Optional(secrets("streamable HTTP: headers sent with each request")),
  description: t.Optional(t.String({ description: "Shown to the model (at most 500 characters)" })),
};

export const McpDeclaration = t.Object(declarationMembers, { additionalProperties: false });

const scopeField = t.Union([t.Literal("user"), t.Literal("workspace")], { description: "`user`: the host settings (`/workspace/...`); `workspace`: the named workspace's (`/workspaces/:workspace/...`)" });

export const McpPutBody = t.Object(
  {
    scope: t.String({ description: "Must be the route's scope: `user` on `/workspace/...`, `workspace` on `/workspaces/:workspace/...`", error: fail("invalid_scope", "scope is required") }),
    // A record, so that no member is dropped before `parseServerEntry` checks each (and names the one at fault).
    config: t.Record(t.String(), t.Unknown(), {
      description: "The declaration (the members of McpDeclaration, no others): `command` (+ `args`, `env`, `cwd`) or `url`/`httpUrl` (+ `headers`), and `description`",
      error: fail("invalid_mcp_server_config", "config is required and must be an object"),
    }),
  },
  // Other top-level members are dropped, as on every body here; the declaration itself is strict.
  { additionalProperties: false, error: fail("invalid_request", "The body must be an object {scope, config}") },
);

export const McpDeleteQuery = t.Object({ scope: t.Optional(t.String({ description: "Must be the route's scope (`user` or `workspace`)" })) });

export const McpConfigStatus = t.Object({
  v: t.Literal(1),
  effective: t.Record(t.String(), McpDeclaration, { description: "The servers in force: the host's, with a trusted workspace's over them" }),
  user: t.Record(t.String(), McpDeclaration, { description: "The host settings' declarations" }),
  workspace: t.Record(t.String(), McpDeclaration, { description: "The workspace settings' declarations (in force only while it is trusted)" }),
});

const activation = t.Union([t.Literal("reconciling"), t.Literal("deferred")], {
  description: "`reconciling`: a running agent reloads its servers now and uses them from its next turn; `deferred`: none runs (or the workspace is untrusted), the agent reads them when it starts",
});

export const McpPutAnswer = t.Object({ name: t.String(), scope: scopeField, config: McpDeclaration, activation });
export const McpDeleteAnswer = t.Object({ name: t.String(), scope: scopeField, activation });
export const McpToggleAnswer = t.Object({
  serverName: t.String(),
  action: t.Union([t.Literal("enable"), t.Literal("disable")]),
  ok: t.Literal(true),
  changed: t.Boolean({ description: "Whether `mcp.excluded` changed" }),
  activation: t.Union([activation, t.Literal("applied")], { description: "`applied` when nothing changed" }),
});
