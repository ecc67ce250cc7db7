/** Schemas of the extension routes (`extensions.ts`), in the reference daemon's shapes. */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";

const fail = (code: string, message: string) => () => new DaemonError(400, code, message).body();
const MAX_SOURCE_CHARS = 4096;

export const ExtensionNameParams = t.Object({ name: t.String({ minLength: 1, maxLength: 64, description: "The extension's name", error: fail("invalid_extension_name", "the extension name must be 1 to 64 characters") }) });
export const OperationParams = t.Object({ operationId: t.String({ minLength: 1, maxLength: 64, description: "An operation id" }) });

export const InstallBody = t.Object(
  {
    source: t.String({ minLength: 1, maxLength: MAX_SOURCE_CHARS, description: "The absolute path of a local folder holding qwen-extension.json, or a scoped npm package `@scope/name[@version|@tag]` from the configured registry (checked against its sha512 integrity); another remote source is 422", error: fail("invalid_extension_source", "Missing or invalid source") }),
    consent: t.Literal(true, { description: "Required: the caller agrees to install the extension", error: fail("extension_consent_required", "Extension installation requires explicit consent") }),
  },
  { additionalProperties: true },
);
/** `scope` is accepted as the reference sends it; extensions are the user's in this daemon, whatever it says. */
export const ActivationBody = t.Optional(t.Object({ scope: t.Optional(t.String({ maxLength: 32 })) }, { additionalProperties: true }));

const Capabilities = t.Object({
  mcpServerCount: Type.Integer(),
  skillCount: Type.Integer(),
  agentCount: Type.Integer(),
  hookCount: Type.Integer(),
  commandCount: Type.Integer(),
  contextFileCount: Type.Integer(),
  channelCount: Type.Integer(),
  hasSettings: t.Boolean(),
});
const Details = t.Object({
  mcpServers: t.Array(t.String()),
  commands: t.Array(t.String()),
  skills: t.Array(t.String()),
  agents: t.Array(t.String()),
  contextFiles: t.Array(t.String()),
  settings: t.Array(t.String()),
});
const ExtensionCell = t.Object({
  kind: t.Literal("extension"),
  id: t.String({ description: "64 hex characters, derived from the name" }),
  name: t.String(),
  displayName: t.Optional(t.String()),
  description: t.Optional(t.String()),
  version: t.String(),
  isActive: t.Boolean({ description: "Enabled: its skills, instruction files and MCP servers reach the built-in agent" }),
  source: t.String({ description: "The folder it was installed from, or the registry package (`@scope/name@version`)" }),
  installType: t.UnionEnum(["local", "npm"], { description: "local: copied from a folder; npm: a registry package, checked against its integrity" }),
  updateState: t.Literal("not updatable"),
  capabilities: Capabilities,
  details: Details,
});
export const ExtensionsReply = t.Object({ v: t.Literal(1), workspaceCwd: t.String(), initialized: t.Literal(true), extensions: t.Array(ExtensionCell) });

export const ExtensionOperation = t.Object({
  v: t.Literal(1),
  operationId: t.String(),
  operation: t.Union([t.Literal("install"), t.Literal("enable"), t.Literal("disable"), t.Literal("uninstall")]),
  status: t.Union([t.Literal("queued"), t.Literal("running"), t.Literal("succeeded"), t.Literal("failed")]),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  name: t.Optional(t.String()),
  source: t.Optional(t.String()),
  result: t.Optional(t.Record(t.String(), t.Unknown())),
  error: t.Optional(t.String()),
  code: t.Optional(t.String()),
});
export const OperationsReply = t.Object({ v: t.Literal(1), operations: t.Array(ExtensionOperation) });
export const AcceptedReply = t.Object({ accepted: t.Literal(true), operationId: t.String() });
export const RefreshReply = t.Object({ refreshed: Type.Integer({ description: "Sessions of the live built-in agent that took the change" }), failed: Type.Integer() });
