/**
 * The prompt queue against a stand-in session (no agent child): a fault inside the daemon while a
 * prompt runs (here, an echo that cannot be published) ends that prompt with `turn_error` and the
 * queue goes on; the daemon keeps running.
 */
import { expect, test } from "bun:test";
import { Logger } from "../../../src/logging/logger.ts";
import { PromptQueue, type QueueHost } from "../../../src/sessions/prompt-queue.ts";
import { until } from "../../helpers/until.ts";

interface Published {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** A session whose bus refuses (throws on) the echo of any block whose text is "poison". */
function standIn(): { host: QueueHost; published: Published[] } {
  const published: Published[] = [];
  const host: QueueHost = {
    id: "session-1",
    agentSessionId: "session-1",
    agentPrompt: (content) => [...content],
    bus: { lastId: 0, epoch: "epoch-1" },
    // No agent child: a prompt that gets as far as the agent ends with `channel_closed`.
    runtime: { current: () => null, channelLive: true },
    promptFields: {},
    publish(type, data) {
      const update = (data as { update?: { content?: { text?: string } } }).update;
      if (type === "session_update" && update?.content?.text === "poison") throw new RangeError("Maximum call stack size exceeded");
      published.push({ type, data: data as Record<string, unknown> });
    },
  };
  return { host, published };
}

test("a prompt whose echo cannot be published ends with turn_error internal_error, and the next prompt runs", async () => {
  const { host, published } = standIn();
  const logs: string[] = [];
  const queue = new PromptQueue(host, {
    maxPending: 5,
    deadlineMs: null,
    logger: new Logger("error", "text", { write: (chunk) => void logs.push(chunk) }),
    onAdmitted: () => {},
    cancelPermissions: () => {},
    onSettled: () => {},
  });
  const poisoned = queue.submit([{ type: "text", text: "poison" }], null, null).promptId;
  const next = queue.submit([{ type: "text", text: "fine" }], null, null).promptId;

  const terminals = await until(() => {
    const ends = published.filter((p) => p.type === "turn_complete" || p.type === "turn_error");
    return ends.length === 2 ? ends : null;
  }, 2000, "both prompts to end");
  expect(terminals[0]!.data).toEqual({ sessionId: "session-1", promptId: poisoned, message: "the daemon could not run this prompt", code: "internal_error" });
  // The next prompt was started and echoed; it ends for want of an agent.
  expect(published.some((p) => p.type === "pending_prompt_started" && p.data.promptId === next)).toBe(true);
  expect(terminals[1]!.data).toMatchObject({ promptId: next, code: "channel_closed" });
  expect(queue.size).toBe(0);
  await until(() => logs.some((l) => l.includes("prompt failed inside the daemon")), 2000, "the fault to be logged");
});
