/**
 * MCP tool names (`builtin-agent/mcp/mcp-tools.ts`): no two tools share a model-facing name, and what
 * the user decided about a tool (a toggle, an "always" answer) follows the tool, not a name another
 * server can take over.
 */
import { describe, expect, test } from "bun:test";
import type { McpServers, McpToolInfo } from "../../../src/builtin-agent/mcp/mcp-servers.ts";
import { allTools, isDisabled, toolSet } from "../../../src/builtin-agent/mcp/mcp-tools.ts";
import { BUILTIN_TOOLS } from "../../../src/builtin-agent/tools/registry.ts";
import type { ToolContext } from "../../../src/builtin-agent/tools/tool.ts";

const info = (server: string, name: string): McpToolInfo => ({ server, name, description: `${name} of ${server}`, inputSchema: { type: "object" } });
/** Only `tools()` is read to name the tools. */
const servers = (...tools: McpToolInfo[]) => ({ tools: () => tools }) as unknown as McpServers;
const mcpNames = (s: McpServers) => [...allTools(s).keys()].filter((name) => !BUILTIN_TOOLS.has(name));
const distinct = /^mcp__a__b__c_[0-9a-f]{8}$/;

describe("MCP tool names", () => {
  test("a tool alone keeps its plain name", () => {
    expect(mcpNames(servers(info("test", "echo"), info("my.srv", "do it")))).toEqual(["mcp__test__echo", "mcp__my_srv__do_it"]);
  });

  test("tools whose plain names meet all take distinct names, whichever came first", () => {
    const one = info("a", "b__c");
    const two = info("a__b", "c");
    const names = mcpNames(servers(one, two));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(distinct);
    expect(new Set(names).size).toBe(2);
    // The order the servers came in does not decide which tool a name means.
    expect(mcpNames(servers(two, one))).toEqual([...names].reverse());
    expect(allTools(servers(one, two)).get(names[0]!)!.description).toBe("b__c of a (MCP server a)");
  });

  test("sanitising and the 64-character cut make names meet too", () => {
    expect(mcpNames(servers(info("my.srv", "echo"), info("my_srv", "echo"))).every((n) => /^mcp__my_srv__echo_[0-9a-f]{8}$/.test(n))).toBe(true);
    const long = "x".repeat(70);
    const names = mcpNames(servers(info("s", `${long}1`), info("s", `${long}2`)));
    expect(new Set(names).size).toBe(2);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
  });

  test("a tool named to meet another's distinct name is left out, and the first keeps it", () => {
    const one = info("a", "b__c");
    const two = info("a__b", "c");
    const [first] = mcpNames(servers(one, two));
    const squatter = info("a", first!.slice("mcp__a__".length));
    const names = mcpNames(servers(one, two, squatter));
    expect(names.filter((n) => n === first)).toHaveLength(1);
    expect(allTools(servers(one, two, squatter)).get(first!)!.description).toBe("b__c of a (MCP server a)");
  });

  test("disabling the plain name disables every tool that meets on it; a distinct name disables its tool under either name", () => {
    const one = info("a", "b__c");
    const two = info("a__b", "c");
    const both = servers(one, two);
    const [first, second] = mcpNames(both);
    const offPlain = toolSet(both, new Set(["mcp__a__b__c"]));
    expect([...offPlain.enabled.keys()].filter((n) => n.startsWith("mcp__"))).toEqual([]);
    expect(offPlain.disabled.has(first!)).toBe(true);
    // Disabled under its distinct name, the tool stays disabled once the other server is gone and it takes the plain name.
    const alone = toolSet(servers(one), new Set([first!]));
    expect(alone.enabled.has("mcp__a__b__c")).toBe(false);
    expect(alone.disabled.has("mcp__a__b__c")).toBe(true);
    expect(isDisabled(allTools(servers(one)).get("mcp__a__b__c")!, new Set([second!]))).toBe(false);
  });

  test("an always answer is remembered for the real server and tool, not the name", async () => {
    const fakeContext = {} as ToolContext;
    const [one, two] = [info("a", "b__c"), info("a__b", "c")];
    const tools = allTools(servers(one, two));
    const scopes = await Promise.all([...tools.values()].filter((t) => !BUILTIN_TOOLS.has(t.name)).map(async (t) => (await t.prepare({}, fakeContext)).alwaysScope));
    expect(scopes.map((s) => s?.key)).toEqual(["mcp\0a\0b__c", "mcp\0a__b\0c"]);
    expect(scopes[0]!.label).toBe("Always allow b__c from MCP server a");
  });
});
