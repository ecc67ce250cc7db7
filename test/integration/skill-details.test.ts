/**
 * `available_commands_update` reaches clients without `_meta.availableSkillDetails`, as the
 * reference daemon publishes it (protocol-notes addendum): Qwen Code sends ~550 KB of skill
 * bodies there once per session. The rest of `_meta` and the command list stay, live and replayed.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

test("skill details are dropped from available_commands_update, live and in the replay; the rest stays", async () => {
  await using d = await fakeAgentDaemon();
  const { sessionId } = await d.createSession();
  const update = {
    sessionUpdate: "available_commands_update",
    availableCommands: [{ name: "review", description: "Review the code", input: null }],
    _meta: { availableSkills: ["review"], availableSkillDetails: [{ name: "review", body: "x".repeat(200_000), installedPath: "/home/u/.qwen/skills/review" }] },
  };
  await using live = await d.events(sessionId);
  const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@update ${JSON.stringify(update)}` }] });
  expect(reply.status).toBe(202);
  await live.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);

  await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
  await replay.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);
  for (const frames of [live.frames, replay.frames]) {
    const commands = frames.filter((f) => f.event === "session_update" && f.data.update?.sessionUpdate === "available_commands_update" && f.data.update?._meta?.availableSkills);
    expect(commands).toHaveLength(1);
    expect(commands[0]!.data.update).toEqual({ sessionUpdate: "available_commands_update", availableCommands: update.availableCommands, _meta: { availableSkills: ["review"] } });
  }
});
