import { describe, expect, test } from "bun:test";
import { parseDraft } from "../../../src/builtin-agent/subagents/generate-method.ts";
import { subagentTools } from "../../../src/builtin-agent/subagents/run-subagent.ts";
import { BUILTIN_TOOLS } from "../../../src/builtin-agent/tools/registry.ts";
import { GENERAL_PURPOSE, parseDefinition } from "../../../src/workspace/agents/index.ts";

describe("parseDraft", () => {
  test("takes the JSON object out of a fenced answer", () => {
    expect(parseDraft('Here:\n```json\n{"name":"api-doc","description":"Use this agent when docs","systemPrompt":"You are X."}\n```')).toEqual({ name: "api-doc", description: "Use this agent when docs", systemPrompt: "You are X." });
  });
  test.each([
    ["no object", "no json here"],
    ["broken JSON", '{"name": '],
    ["a missing field", '{"name":"ab","description":"d"}'],
    ["a name that is not an agent type", '{"name":"../x","description":"d","systemPrompt":"p"}'],
  ])("refuses %s", (_label, text) => {
    expect(() => parseDraft(text)).toThrow();
  });
});

describe("subagentTools", () => {
  const parent = { enabled: BUILTIN_TOOLS, disabled: new Set<string>() };
  test("general-purpose gets the parent's tools but task", () => {
    expect([...subagentTools(parent, GENERAL_PURPOSE).enabled.keys()]).toEqual([...BUILTIN_TOOLS.keys()].filter((n) => n !== "task"));
  });
  test("an allow-list never adds a tool the parent lacks, and task stays out even when listed", () => {
    const def = parseDefinition("---\nname: ab\ndescription: d\ntools: [read_file, task, made_up]\n---\np", "user");
    const without = { enabled: new Map([...BUILTIN_TOOLS].filter(([n]) => n !== "read_file")), disabled: new Set(["read_file"]) };
    expect([...subagentTools(without, def).enabled.keys()]).toEqual([]);
    expect([...subagentTools(parent, def).enabled.keys()]).toEqual(["read_file"]);
  });
});
