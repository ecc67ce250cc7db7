/**
 * Updates an agent sends for session ids nobody registered are held under a byte bound
 * (EARLY_BYTES, see `early-updates.ts`): a flood of large ones over a few ghost ids makes the
 * oldest go, each drop logged, and the agent and its real sessions carry on.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { pidAlive } from "../helpers/pids.ts";
import { EARLY_BYTES } from "../../src/runtime/early-updates.ts";

const MB_TEXT = "g".repeat(1000 * 1000);
const ghostLine = (n: number) =>
  `@notify session/update ${JSON.stringify({ sessionId: `ghost-${n % 5}`, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: MB_TEXT } } })}`;

test("a flood of large updates for unregistered sessions is held under EARLY_BYTES, the oldest dropped and logged", async () => {
  await using d = await fakeAgentDaemon();
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  const [agent] = await d.waitForAgents(1);
  await using events = await d.events(sessionId);
  const perPrompt = 4;
  const prompts = Math.ceil(EARLY_BYTES / (perPrompt * MB_TEXT.length)) + 1;
  for (let p = 0; p < prompts; p++) {
    const text = Array.from({ length: perPrompt }, (_, i) => ghostLine(p * perPrompt + i)).join("\n");
    const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
    expect(reply.status).toBe(202);
    const promptId = reply.body.promptId as string;
    expect((await events.first("turn_complete", (f) => f.data.promptId === promptId, 20_000)).data).toMatchObject({ stopReason: "end_turn" });
  }
  const drops = d.logs.filter((l) => l.includes("update for an unregistered session dropped"));
  expect(drops.length).toBeGreaterThan(0);
  expect(drops.every((l) => l.includes("too_many_bytes"))).toBe(true);
  expect(pidAlive(agent!)).toBe(true);
});
