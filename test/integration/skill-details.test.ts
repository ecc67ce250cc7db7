/**
 * `available_commands_update` reaches clients without `_meta.availableSkillDetails`, as the
 * reference daemon publishes it (protocol-notes addendum): Qwen Code sends ~550 KB of skill
 * bodies there once per session; the notification's and each command's `_meta` are cleaned the same
 * way. The rest of `_meta` and the command list stay, live and replayed.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { until } from "../helpers/until.ts";

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

test("skill details are dropped from the notification's _meta and each command's _meta too, whatever the agent; the other keys stay", async () => {
  await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_NAME: "qwen-code" } });
  const { sessionId } = await d.createSession();
  const first = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "hello" }] });
  expect(first.status).toBe(202);
  const agentSessionId = await until(async () => ((await d.sentToAgent("session/prompt"))[0]?.params as { sessionId?: string } | undefined)?.sessionId);
  const details = [{ name: "x", body: "y".repeat(200_000) }];
  const notification = {
    sessionId: agentSessionId,
    update: {
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "x", description: "X", input: null, _meta: { availableSkillDetails: details, kept: 1 } }],
    },
    _meta: { availableSkillDetails: details, kept: 2 },
  };
  await using live = await d.events(sessionId);
  const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@notify session/update ${JSON.stringify(notification)}` }] });
  expect(reply.status).toBe(202);
  await live.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);
  await using replay = await d.events(sessionId, { "Last-Event-ID": "0" });
  await replay.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);
  for (const frames of [live.frames, replay.frames]) {
    const commands = frames.filter((f) => f.event === "session_update" && f.data.update?.availableCommands?.[0]?.name === "x");
    expect(commands).toHaveLength(1);
    expect(JSON.stringify(commands[0]!.data)).not.toContain("availableSkillDetails");
    expect(commands[0]!.data._meta).toEqual({ kept: 2 });
    expect(commands[0]!.data.update.availableCommands[0]._meta).toEqual({ kept: 1 });
  }
});
