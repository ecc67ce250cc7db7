/**
 * The cap on a session's pending permission requests (MAX_PENDING, 64): an agent that asks 65 at
 * once gets 64 admitted (published, counted, votable) and the 65th answered `cancelled` at once,
 * never published (issue 22, deliverable 10).
 */
import { describe, expect, test } from "bun:test";
import { MAX_PENDING } from "../../src/sessions/permission-broker.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { until } from "../helpers/until.ts";

const agentText = (frames: readonly { event: string; data: any }[]) =>
  frames
    .filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "agent_message_chunk")
    .map((f) => f.data.update.content.text as string)
    .join("");

describe("pending permission cap", () => {
  test(`an agent asking ${MAX_PENDING + 1} permissions at once gets ${MAX_PENDING} pending and the next one cancelled at once`, async () => {
    expect(MAX_PENDING).toBe(64);
    await using d = await fakeAgentDaemon();
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
    const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@permissions ${MAX_PENDING + 1}` }] });
    expect(prompt.status).toBe(202);

    // The one over the cap is answered at once, while the others wait for votes.
    await until(() => /: cancelled\n/.test(agentText(events.frames)), 10_000, "the request over the cap to be cancelled");
    const requests = () => events.frames.filter((f) => f.event === "permission_request");
    await until(() => requests().length >= MAX_PENDING, 10_000, `${MAX_PENDING} permission requests`);
    expect(agentText(events.frames).match(/: cancelled\n/g)).toHaveLength(1);
    expect((await d.json("GET", "/health?deep")).body.pendingPermissions).toBe(MAX_PENDING);
    expect(requests()).toHaveLength(MAX_PENDING);
    const refused = /permission (fake-permission-\d+): cancelled/.exec(agentText(events.frames))![1];
    expect(requests().map((f) => f.data.toolCall.toolCallId)).not.toContain(refused);

    // The admitted ones are real requests: a vote answers one, a cancel the rest.
    const [first] = requests();
    expect((await d.json("POST", `/session/${sessionId}/permission/${first!.data.requestId}`, { outcome: { outcome: "selected", optionId: "proceed_once" } })).status).toBe(200);
    await until(() => agentText(events.frames).includes(`permission ${first!.data.toolCall.toolCallId}: selected proceed_once`), 10_000, "the voted one answered");
    expect((await d.json("POST", `/session/${sessionId}/cancel`, {})).status).toBe(204);
    await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId, 10_000);
    expect((await d.json("GET", "/health?deep")).body.pendingPermissions).toBe(0);
  });
});
