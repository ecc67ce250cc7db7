/**
 * The build's lazy ACP schemas (`build/lazy-acp-schemas.ts`) must validate exactly as the SDK's own:
 * every exported schema of the generated module, rewritten and loaded from a temp dir, parses a
 * corpus of probes and real protocol messages to the same result (success, value or issues) as the
 * original.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { lazySchemas } from "../../../build/lazy-acp-schemas.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const GENERATED = Bun.resolveSync("@agentclientprotocol/sdk/unstable", import.meta.dir).replace(/acp\.js$/, "schema/zod.gen.js");

type Schemas = Record<string, { safeParse(value: unknown): unknown }>;

/** The rewritten module, loadable from anywhere: its relative and package imports made absolute. */
async function loadLazy(dir: string): Promise<Schemas> {
  const source = await Bun.file(GENERATED).text();
  const core = join(dirname(GENERATED), "../../../core/");
  const code = lazySchemas(source, GENERATED)
    .replaceAll('"../../../core/', JSON.stringify(core).slice(0, -1))
    .replace('from "zod/v4"', `from ${JSON.stringify(Bun.resolveSync("zod/v4", dirname(GENERATED)))}`);
  const file = join(dir, "zod.gen.lazy.js");
  writeFileSync(file, code);
  return (await import(file)) as Schemas;
}

const text = { type: "text", text: "hi" };
const PROBES: unknown[] = [
  undefined, null, 0, 1.5, -1, 2 ** 60, "", "x", true, [], [1, "a"], {},
  { sessionId: "s" }, { sessionId: 5 }, { type: "text", text: "t" }, { type: "image", data: "AA==", mimeType: "image/png" },
  { sessionUpdate: "agent_message_chunk", content: text }, { sessionUpdate: "custom_kind", extra: { a: 1 } },
  { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: text } },
  { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "t", title: "Edit", kind: "edit", status: "pending", content: [{ type: "diff", path: "/a", oldText: null, newText: "b" }], locations: [{ path: "/a", line: 3 }] } },
  { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed", content: [{ type: "content", content: text }] } },
  { sessionId: "s", update: { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] } },
  { sessionId: "s", update: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "init", description: "d", input: { hint: "h" } }] } },
  { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text" } } },
  { sessionId: "s", toolCall: { toolCallId: "t", title: "Write" }, options: [{ optionId: "a", name: "Allow", kind: "allow_once" }, { optionId: "r", name: "Reject", kind: "reject_once" }] },
  { protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, mcpCapabilities: { http: true } }, authMethods: [{ id: "k", name: "Key" }] },
  { sessionId: "x", models: { availableModels: [{ modelId: "m", name: "M" }], currentModelId: "m" }, modes: { currentModeId: "a", availableModes: [{ id: "a", name: "A" }] } },
  { stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }, { stopReason: "weird" },
  { sessionId: "s", path: "/a", content: "x" }, { sessionId: "s", path: "/a", line: 1.5, limit: 10 },
  { sessionId: "s", prompt: [text, { type: "resource_link", uri: "file:///a", name: "a" }] },
  { sessionId: "s", command: "ls", args: ["-l"], env: [{ name: "A", value: "b" }], outputByteLimit: 100 },
  { cwd: "/w", mcpServers: [{ name: "m", command: "x", args: [], env: [] }, { type: "http", name: "h", url: "http://x", headers: [] }] },
  { outcome: { outcome: "selected", optionId: "a" } }, { outcome: { outcome: "cancelled" } },
  { configOptions: [{ id: "o", name: "O", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] }] },
  { _meta: { a: 1 }, sessionId: "s", cwd: "/w" },
];

test("every lazily built ACP schema parses the corpus exactly as the SDK's own", async () => {
  await using dir = tempDir("svc-lazy-schemas-");
  const eager = (await import(GENERATED)) as Schemas;
  const lazy = await loadLazy(dir.path);
  const names = Object.keys(eager).filter((k) => k.startsWith("z"));
  expect(names.length).toBeGreaterThan(200);
  expect(Object.keys(lazy).sort()).toEqual(Object.keys(eager).sort());
  let compared = 0;
  for (const name of names) {
    for (const probe of PROBES) {
      const want = JSON.stringify(eager[name]!.safeParse(probe));
      const got = JSON.stringify(lazy[name]!.safeParse(probe));
      if (got !== want) throw new Error(`${name} on ${JSON.stringify(probe)}: ${got} ≠ ${want}`);
      compared++;
    }
  }
  expect(compared).toBe(names.length * PROBES.length);
});

test("a generated module whose layout the rewrite does not fully match fails the build", () => {
  const ok = 'import * as z from "zod/v4";\nexport const zA = z.string();\n/** b */\nexport const zB = z.object({\n    a: zA\n});\n';
  expect(lazySchemas(ok, "ok.js")).toContain("export const zB = z.lazy(() => z.object({");
  expect(() => lazySchemas(`${ok}export function helper() {}\n`, "extra.js")).toThrow("2 of 3 exports");
  expect(() => lazySchemas(ok.replace('"zod/v4"', '"zod"'), "zod.js")).toThrow("import * as z");
});
