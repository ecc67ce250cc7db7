/**
 * The JSON Schema validator the built-in agent's MCP clients check structured tool results with:
 * the SDK's @cfworker/json-schema provider (no code generation; the SDK's default, Ajv, is not in the
 * binary, see build.ts). The SDK compiles every listed tool's outputSchema when it lists the tools,
 * and one schema that does not compile would fail the listing and with it the whole server; here
 * such a tool stays offered and each of its calls fails, saying why.
 */
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export async function outputValidator(): Promise<jsonSchemaValidator> {
  const { CfWorkerJsonSchemaValidator } = await import("@modelcontextprotocol/sdk/validation/cfworker");
  const compiler = new CfWorkerJsonSchemaValidator();
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      try {
        return compiler.getValidator<T>(schema);
      } catch (error) {
        const errorMessage = `the tool's outputSchema cannot be used: ${error instanceof Error ? error.message : String(error)}`;
        return () => ({ valid: false, data: undefined, errorMessage });
      }
    },
  };
}
