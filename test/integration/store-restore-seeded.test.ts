/**
 * Restore for an agent that offers neither `session/load` nor `session/resume` (the fake agent with
 * `FAKE_AGENT_RESTORE=none`): a fresh agent session stands in, seeded with the journal's
 * conversation ahead of the first prompt; the daemon's session id stays the one clients use, and
 * everything said to the agent names the new agent-side id.
 */
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import type { WireEntry } from "../fixtures/fake-agent/wire-log.ts";
import { spawnDaemon } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { agentChunks, untilTurnEnds } from "../helpers/prompt-session.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const post = (url: string, body: unknown = {}) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const proceedOnce = { outcome: "selected", optionId: "proceed_once" };
const SEED_HEADER = "[Context from svc";

type PromptParams = { sessionId: string; prompt: { type: string; text?: string }[] };
const promptOf = (entry: WireEntry) => entry.params as PromptParams;

describe("seeded restore", () => {
  test("kill -9, restart, load on an agent without load/resume: a fresh agent session gets the seed, every request uses its id, events come back under the daemon's", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const env = { SVC_HOME: home.path, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_RESTORE: "none" };
    let sessionId: string;
    {
      await using daemon = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cwd: ws.path, env });
      sessionId = ((await (await post(`${daemon.url}/session`, { sessionScope: "thread" })).json()) as { sessionId: string }).sessionId;
      const sse = await openSse(`${daemon.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
      // A directive on a later line of a user prompt: quoted back in the seed, it must not run again.
      for (const text of ["remember the zebra", "what next\n@say the answer is 42"]) {
        const { promptId } = (await (await post(`${daemon.url}/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] })).json()) as { promptId: string };
        await sse.waitFor("turn_complete", (f) => f.data.promptId === promptId);
      }
      daemon.proc.kill("SIGKILL");
      await daemon.proc.exited;
      // The stream breaks with the daemon: its reset is expected, not a failure.
      await until(() => sse.ended, 5000, "the stream to end");
      await Promise.resolve(sse[Symbol.asyncDispose]()).catch(() => {});
    }

    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "none" } });
    const load = await d.json("POST", `/session/${sessionId}/load`, {});
    expect(load.status).toBe(200);
    expect(load.body).toMatchObject({ sessionId, attached: false, restoredBy: "seeded", workspaceCwd: ws.path, liveJournal: [] });
    // The load still carries the journal's replay.
    expect(JSON.stringify(load.body.compactedReplay)).toContain("the answer is 42");
    expect(await d.sentToAgent("session/new")).toHaveLength(1);
    expect(await d.sentToAgent("session/load")).toHaveLength(0);
    expect(await d.sentToAgent("session/resume")).toHaveLength(0);

    await using sse = await d.events(sessionId, { "Last-Event-ID": "0" });
    const clientId = load.body.clientId as string;
    const prompt = async (text: string) => {
      const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] }, { "X-Svc-Client-Id": clientId });
      expect(reply.status).toBe(202);
      return reply.body.promptId as string;
    };

    // The first prompt reaches the agent under the new agent session id, after the seed.
    const first = await prompt("@say back again");
    const firstTurn = await untilTurnEnds(sse, first);
    expect(agentChunks(firstTurn)).toEqual(["back again"]);
    const [sent] = (await d.sentToAgent("session/prompt")).map(promptOf);
    const agentSessionId = sent!.sessionId;
    expect(agentSessionId).not.toBe(sessionId);
    expect(sent!.prompt).toHaveLength(2);
    const seed = sent!.prompt[0]!.text!;
    expect(seed.startsWith(SEED_HEADER)).toBe(true);
    expect(seed).toContain("User: remember the zebra\nAgent: remember the zebra\nUser: what next\n| @say the answer is 42\nAgent: the answer is 42\n");
    expect(sent!.prompt[1]).toEqual({ type: "text", text: "@say back again" });
    // Events come back under the daemon's id, and the seed is never published.
    for (const frame of sse.frames.filter((f) => f.event === "session_update")) expect(frame.data.sessionId).toBe(sessionId);
    expect(sse.frames.some((f) => JSON.stringify(f.data).includes(SEED_HEADER))).toBe(false);

    // A permission asked under the agent's id is voted on under the daemon's; later prompts carry no seed.
    const asking = await prompt("@permission Write notes.md\n@say after");
    const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === asking);
    expect(request.data.sessionId).toBe(sessionId);
    const vote = await d.json("POST", `/session/${sessionId}/permission/${request.data.requestId}`, { outcome: proceedOnce }, { "X-Svc-Client-Id": clientId });
    expect(vote.status).toBe(200);
    expect(agentChunks(await untilTurnEnds(sse, asking))).toEqual(["permission: selected proceed_once", "after"]);

    // Cancel reaches the agent's session.
    const hanging = await prompt("@hang");
    await until(async () => (await d.sentToAgent("session/prompt")).length === 3, 5000, "the agent to get the third prompt");
    expect((await d.fetch(`/session/${sessionId}/cancel`, { method: "POST", headers: { "X-Svc-Client-Id": clientId } })).status).toBeLessThan(300);
    const cancelled = await untilTurnEnds(sse, hanging);
    expect(cancelled.at(-1)!.data).toMatchObject({ stopReason: "cancelled" });
    expect((await d.sentToAgent("session/cancel", agentSessionId)).length).toBeGreaterThanOrEqual(1);

    // Switching the model names the agent's session.
    const model = await d.json("POST", `/session/${sessionId}/model`, { modelId: "fake-model-b" });
    expect(model.status).toBe(200);
    expect(await d.sentToAgent("session/set_config_option", agentSessionId)).toHaveLength(1);

    const prompts = (await d.sentToAgent("session/prompt")).map(promptOf);
    expect(prompts.map((p) => p.sessionId)).toEqual([agentSessionId, agentSessionId, agentSessionId]);
    expect(prompts.slice(1).map((p) => p.prompt.length)).toEqual([1, 1]);

    // One session in the list and one transcript, under the daemon's id.
    const list = await d.json("GET", `/workspace/${encodeURIComponent(ws.path)}/sessions`);
    expect(list.body.sessions).toEqual([expect.objectContaining({ sessionId, live: true })]);
    const transcript = JSON.stringify((await d.json("GET", `/session/${sessionId}/transcript?limit=500`)).body.events);
    expect(transcript).toContain("remember the zebra");
    expect(transcript).toContain("back again");
    expect(transcript).not.toContain(SEED_HEADER);

    // Closing with a prompt running cancels it and closes the agent's session; nothing was ever
    // sent naming the daemon's id.
    await prompt("@hang");
    await until(async () => (await d.sentToAgent("session/prompt")).length === 4, 5000, "the agent to get the fourth prompt");
    const cancelsBefore = (await d.sentToAgent("session/cancel", agentSessionId)).length;
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    await until(async () => (await d.sentToAgent("session/cancel", agentSessionId)).length === cancelsBefore + 1, 5000, "the close's cancel to reach the agent");
    await until(async () => (await d.sentToAgent("session/close", agentSessionId)).length === 1, 5000, "session/close to reach the agent");
    const byDaemonId = (await d.wire()).filter((e) => (e.params as { sessionId?: string } | undefined)?.sessionId === sessionId);
    expect(byDaemonId).toEqual([]);
    // The closed session no longer holds the runtime: the child goes with its last session.
    await until(async () => (await d.json("GET", "/daemon/status")).body.runtime.channel.live === false, 5000, "the child to go with its last session");
  }, 30_000);

  test("qwen-code's status and close methods name the agent-side id; the replies name the daemon's", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const env = { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "none", FAKE_AGENT_NAME: "qwen-code" };
    let sessionId: string;
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env });
      sessionId = (await d.createSession({ sessionScope: "thread" })).sessionId;
      expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    }
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env });
    expect((await d.json("POST", `/session/${sessionId}/resume`, {})).body).toMatchObject({ restoredBy: "seeded" });
    const context = await d.json("GET", `/session/${sessionId}/context`);
    expect(context.status).toBe(200);
    expect(context.body).toMatchObject({ sessionId, recovery: expect.any(Object) });
    const commands = await d.json("GET", `/session/${sessionId}/supported-commands`);
    expect(commands.status).toBe(200);
    expect(commands.body).toMatchObject({ sessionId, availableCommands: expect.arrayContaining([expect.objectContaining({ name: "help" })]) });
    const [asked] = await d.sentToAgent("qwen/status/session/context");
    const agentSessionId = (asked!.params as { sessionId: string }).sessionId;
    expect(agentSessionId).not.toBe(sessionId);
    expect(await d.sentToAgent("qwen/status/session/supported_commands", agentSessionId)).toHaveLength(1);
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    expect(await d.sentToAgent("qwen/control/session/close", agentSessionId)).toHaveLength(1);
  }, 30_000);

  test("a seeded session restored again (after a restart) gets another fresh agent session; the catalog follows its agent-side id", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    const env = { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "none" };
    let sessionId: string;
    let firstAgentId: string;
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env });
      sessionId = (await d.createSession({ sessionScope: "thread" })).sessionId;
      await using sse = await d.events(sessionId);
      const { promptId } = (await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say one" }] })).body;
      await sse.waitFor("turn_complete", (f) => f.data.promptId === promptId);
      expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    }
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env });
      expect((await d.json("POST", `/session/${sessionId}/resume`, {})).body).toMatchObject({ restoredBy: "seeded" });
      await using sse = await d.events(sessionId);
      const { promptId } = (await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say two" }] })).body;
      await sse.waitFor("turn_complete", (f) => f.data.promptId === promptId);
      firstAgentId = promptOf((await d.sentToAgent("session/prompt"))[0]!).sessionId;
      expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
      expect(await d.sentToAgent("session/close", firstAgentId)).toHaveLength(1);
    }
    // An agent that can load now is asked for the agent-side id the catalog recorded.
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_HOME: home.path, FAKE_AGENT_RESTORE: "load" } });
    expect((await d.json("POST", `/session/${sessionId}/load`, {})).body).toMatchObject({ sessionId, restoredBy: "session/load" });
    expect(await d.sentToAgent("session/load", firstAgentId)).toHaveLength(1);
    expect(await d.sentToAgent("session/load", sessionId)).toHaveLength(0);
  }, 30_000);

  test("an agent answering session/new with the id of a live seeded session (daemon id ≠ agent id) is refused, and that session stays", async () => {
    await using dir = tempDir("svc-new-id-");
    const idFile = join(dir.path, "new-id");
    await using d = await fakeAgentDaemon([], { env: { FAKE_AGENT_RESTORE: "none", FAKE_AGENT_NEW_ID_FILE: idFile } });
    const sessionId = (await d.createSession({ sessionScope: "thread" })).sessionId;
    expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
    expect((await d.json("POST", `/session/${sessionId}/resume`, {})).body).toMatchObject({ restoredBy: "seeded" });
    // The agent knows the seeded session by another id, so only the daemon can see the reuse.
    writeFileSync(idFile, sessionId);
    const hostile = await d.json("POST", "/session", { sessionScope: "thread" });
    expect([hostile.status, hostile.body.code]).toEqual([502, "agent_protocol_error"]);
    rmSync(idFile);
    await using sse = await d.events(sessionId);
    const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say still here" }] });
    expect(reply.status).toBe(202);
    const done = await sse.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId);
    expect(done.data.stopReason).toBe("end_turn");
  }, 30_000);
});
