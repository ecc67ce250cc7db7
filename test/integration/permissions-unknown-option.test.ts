/**
 * A vote naming an option the agent never offered, sent through the daemon's vote route to the
 * built-in agent (issue 22, deliverable 10): the daemon refuses it (400 `invalid_option_id`) and
 * the request stays pending, so nothing reaches the agent and the tool does not run; a vote that
 * then rejects it ends the tool declined. (The agent's own guard, for an option id that reaches it
 * anyway, is test/builtin-agent/agent-permission-options.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("a vote with an option id that was not offered", () => {
  test("is refused by the daemon, the request stays pending, and the tool never runs", async () => {
    await using model = startMockModel();
    await using ws = tempDir("svc-unknown-option-");
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
    await using d = await startDaemon([], { workspace: ws.path, env: { PATH: process.env.PATH, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" } });
    const created = await (await d.fetch("/session", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
    const sessionId = created.sessionId as string;
    await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
    const vote = async (requestId: string, outcome: unknown) => {
      const res = await d.fetch(`/session/${sessionId}/permission/${requestId}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ outcome }) });
      return { status: res.status, body: await res.json() };
    };

    model.enqueue({ kind: "tools", calls: [{ name: "write_file", args: { file_path: "w.txt", content: "written" } }] }, { kind: "text", text: "ok" });
    const prompt = await (await d.fetch(`/session/${sessionId}/prompt`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt: [{ type: "text", text: "write it" }] }) })).json();
    const asked = await events.waitFor("permission_request", undefined, 15_000);
    const { requestId } = asked.data;
    for (const optionId of ["allow_everything", "allow_once", "PROCEED_ONCE", "proceed_once ", "__cancelled__"]) {
      expect({ optionId, ...(await vote(requestId, { outcome: "selected", optionId })) }).toEqual({
        optionId,
        status: 400,
        body: { error: expect.any(String), code: "invalid_option_id", requestId, optionId },
      });
    }
    expect((await (await d.fetch("/health?deep")).json()).pendingPermissions).toBe(1);
    expect(existsSync(join(ws.path, "w.txt"))).toBe(false);
    expect(events.frames.filter((f) => f.event === "permission_resolved")).toEqual([]);

    expect((await vote(requestId, { outcome: "selected", optionId: "cancel" })).status).toBe(200);
    const done = await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.promptId, 15_000);
    expect(done.data.stopReason).toBe("end_turn");
    const updates = events.frames.filter((f) => f.event === "session_update").map((f) => f.data.update);
    expect(updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status).at(-1)).toMatchObject({ status: "failed" });
    expect(existsSync(join(ws.path, "w.txt"))).toBe(false);
  });
});
