/**
 * The built-in agent's fork (`session/fork`): the copy is cut before the given prompt's message,
 * keeps the source's mode and model, is saved as the branch's own, and leaves the source as it
 * was; a running turn or a prompt the conversation lacks refuses it.
 */
import { describe, expect, test } from "bun:test";
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { AgentSession } from "../../../src/builtin-agent/agent-session.ts";
import { forkCut, forkInto } from "../../../src/builtin-agent/fork.ts";
import { tagged } from "../../../src/builtin-agent/rewind.ts";

const user = (text: string, promptId: string) => tagged({ role: "user", content: [{ type: "text", text }] }, promptId);
const reply = (text: string): LanguageModelV4Message => ({ role: "assistant", content: [{ type: "text", text }] });

function sessions() {
  const saved: LanguageModelV4Message[][] = [];
  const source = new AgentSession("s", "/ws", "yolo", "m1", () => {});
  source.restore([user("one", "p1"), reply("r1"), user("two", "p2"), reply("r2")]);
  const branch = new AgentSession("b", "/ws", "default", null, () => {}, (h) => saved.push([...h]));
  return { source, branch, saved };
}

describe("fork", () => {
  test("cut before a prompt: the turns before it, saved, with the source's mode and model; the source unchanged", () => {
    const { source, branch, saved } = sessions();
    forkInto(source, branch, "p2");
    expect(branch.history).toHaveLength(2);
    expect(saved).toEqual([branch.history]);
    expect([branch.mode, branch.modelId]).toEqual(["yolo", "m1"]);
    expect(source.history).toHaveLength(4);
  });

  test("no cut: the whole conversation", () => {
    const { source, branch } = sessions();
    forkInto(source, branch, undefined);
    expect(branch.history).toEqual(source.history);
  });

  test("refused while a turn runs, or for a prompt the conversation lacks", () => {
    const { source, branch } = sessions();
    expect(() => forkInto(source, branch, "p9")).toThrow(expect.objectContaining({ data: { errorKind: "branch_point_invalid" } }));
    source.turn = new AbortController();
    expect(() => forkInto(source, branch, undefined)).toThrow(expect.objectContaining({ data: { errorKind: "session_busy" } }));
    expect(branch.history).toHaveLength(0);
  });

  test("the cut is read from _meta['svc/fork'].beforePromptId only when it is a non-empty string", () => {
    expect(forkCut({ "svc/fork": { beforePromptId: "p2" } })).toBe("p2");
    for (const meta of [undefined, null, {}, { "svc/fork": { beforePromptId: "" } }, { "svc/fork": { beforePromptId: 3 } }]) expect(forkCut(meta)).toBeUndefined();
  });
});
