/**
 * `POST /session/:id/branch` with the built-in agent against the mock model: the agent forks its
 * stored conversation cut after the turn, so the branch's next model request carries the parent's
 * history up to the turn and not after it; the parent goes on with its own; the catalog shows the
 * link; the branch comes back after a restart with its conversation.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";

/** The user messages' text of the model's last request. */
function lastUserTexts(model: MockModel): string {
  const body = model.requests.at(-1) as { messages: { role: string; content: unknown }[] };
  return body.messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

async function turn(url: string, events: SseClient, sessionId: string, text: string, clientId?: string): Promise<string> {
  const reply = await jsonRequest(url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] }, clientId ? { "X-Svc-Client-Id": clientId } : {});
  expect(reply.status).toBe(202);
  const end = await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId, 20_000);
  expect(end.data.stopReason).toBe("end_turn");
  return reply.body.promptId as string;
}

describe("branch with the built-in agent", () => {
  test("the branch's next request holds the parent's history up to the turn, the parent keeps its own, and the link survives a restart", async () => {
    await using model = startMockModel();
    await using home = tempDir("k-branch-home-");
    await using ws = tempDir("k-branch-ws-");
    // No automatic title: its model request would take the place of the turns' in `requests`.
    writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
    const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
    let branchId: string;
    let second: string;
    {
      await using d = await startDaemon(["--trust-workspace"], { workspace: ws.path, env });
      const created = await jsonRequest(d.url, "POST", "/session", {});
      const parent = created.body.sessionId as string;
      await using events = await openSse(`${d.url}/session/${parent}/events`, { headers: { "Last-Event-ID": "0" } });
      await turn(d.url, events, parent, "first alpha");
      second = await turn(d.url, events, parent, "second beta");
      await turn(d.url, events, parent, "third gamma");

      const branched = await jsonRequest(d.url, "POST", `/session/${parent}/branch`, { promptId: second });
      expect(branched.status).toBe(201);
      expect(branched.body).toMatchObject({ branchedBy: "fork", parentSessionId: parent, parentPromptId: second, turnIndex: 1 });
      branchId = branched.body.sessionId as string;

      await using branchEvents = await openSse(`${d.url}/session/${branchId}/events`, { headers: { "Last-Event-ID": "0" } });
      await turn(d.url, branchEvents, branchId, "fourth delta", branched.body.clientId);
      const inBranch = lastUserTexts(model);
      for (const word of ["first alpha", "second beta", "fourth delta"]) expect(inBranch).toContain(word);
      expect(inBranch).not.toContain("third gamma");

      await turn(d.url, events, parent, "parent epsilon");
      const inParent = lastUserTexts(model);
      for (const word of ["first alpha", "second beta", "third gamma", "parent epsilon"]) expect(inParent).toContain(word);
      expect(inParent).not.toContain("fourth delta");

      // A branch at the first turn holds only that turn.
      const early = await jsonRequest(d.url, "POST", `/session/${parent}/branch`, { turnIndex: 0 });
      expect(early.status).toBe(201);
      await using earlyEvents = await openSse(`${d.url}/session/${early.body.sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
      await turn(d.url, earlyEvents, early.body.sessionId, "early zeta", early.body.clientId);
      const inEarly = lastUserTexts(model);
      expect(inEarly).toContain("first alpha");
      expect(inEarly).not.toContain("second beta");
    }

    // After a restart: the catalog still links the branch, and a load brings its own conversation back.
    await using d = await startDaemon(["--trust-workspace"], { workspace: ws.path, env });
    const list = await jsonRequest(d.url, "GET", `/workspace/${workspaceId(ws.path)}/sessions`);
    const row = (list.body.sessions as Record<string, unknown>[]).find((r) => r.sessionId === branchId);
    expect(row).toMatchObject({ live: false, parentPromptId: second });
    expect(row?.parentSessionId).toBeString();
    const loaded = await jsonRequest(d.url, "POST", `/session/${branchId}/load`, {});
    expect(loaded.status).toBe(200);
    expect(loaded.body.restoredBy).toBe("session/load");
    expect((await jsonRequest(d.url, "GET", `/session/${branchId}/status`)).body.parentSessionId).toBe(row?.parentSessionId);
    await using events = await openSse(`${d.url}/session/${branchId}/events`, { headers: { "Last-Event-ID": "0" } });
    await turn(d.url, events, branchId, "after restart eta", loaded.body.clientId);
    const restored = lastUserTexts(model);
    for (const word of ["first alpha", "second beta", "fourth delta", "after restart eta"]) expect(restored).toContain(word);
    expect(restored).not.toContain("third gamma");
  });
});
