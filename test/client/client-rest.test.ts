/**
 * The client SDK's REST calls against a real daemon (fake agent child): sessions, prompts, files,
 * workspace status, errors, and the bearer. Every response goes through the contract check.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, DaemonApiError, type EventEnvelope } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "client-sdk-test-token";

/** A fetch that keeps the headers of each request it sends (for the bearer and client-id checks). */
function recordingFetch() {
  const sent: { url: string; headers: Headers }[] = [];
  const fetch = (url: string, init?: RequestInit) => {
    sent.push({ url, headers: new Headers(init?.headers) });
    return contractFetch(url, init);
  };
  return { sent, fetch };
}

async function failure(p: Promise<unknown>): Promise<DaemonApiError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(DaemonApiError);
    return error as DaemonApiError;
  }
  throw new Error("expected the call to fail");
}

const turnEnded = (events: EventEnvelope[], promptId: string) => events.some((e) => e.type === "turn_complete" && e.data.promptId === promptId);

describe("client SDK REST", () => {
  test("session lifecycle: create, list, rename, prompt, transcript, close, load, archive, unarchive", async () => {
    await using d = await fakeAgentDaemon();
    const { sent, fetch } = recordingFetch();
    const c = createClient({ baseUrl: `${d.url}/`, fetch });

    const caps = await c.capabilities();
    expect(caps.features).toContain("session_list");
    expect(caps.workspaceCwd).toBe(d.workspace);
    expect((await c.health()).status).toBe("ok");

    const created = await c.createSession({ sessionScope: "thread" });
    const id = created.sessionId;
    expect(c.clientIdFor(id)).toBe(created.clientId);
    const row = () => c.listSessions().then((p) => p.sessions.find((s) => s.sessionId === id));
    expect((await row())?.live).toBe(true);

    expect((await c.renameSession(id, "Fix the parser")).displayName).toBe("Fix the parser");
    expect((await row())?.displayName).toBe("Fix the parser");

    const { promptId } = await c.prompt(id, "@say hello from the agent");
    // The prompt carried this client's id for the session.
    expect(sent.find((r) => r.url.endsWith(`/session/${id}/prompt`))?.headers.get("x-svc-client-id")).toBe(created.clientId);
    const transcript = await until(async () => {
      const t = await c.transcript(id, { limit: 100 });
      return turnEnded(t.events, promptId) ? t : null;
    }, 10_000, "the prompt's turn_complete in the transcript");
    expect(JSON.stringify(transcript.events)).toContain("hello from the agent");
    expect((await c.pendingPrompts(id)).pendingPrompts).toEqual([]);
    expect((await c.sessionContext(id)).state?.models?.currentModelId).toBe("fake-model-a");

    await c.closeSession(id);
    expect((await row())?.live).toBe(false);

    const loaded = await c.loadSession(id);
    expect(loaded.sessionId).toBe(id);
    expect(c.clientIdFor(id)).toBe(loaded.clientId);
    expect(loaded.compactedReplay?.some((e) => e.type === "turn_complete" && e.data.promptId === promptId)).toBe(true);
    expect((await row())?.live).toBe(true);

    await c.closeSession(id);
    expect((await c.archiveSessions([id])).results).toEqual([{ sessionId: id, outcome: "archived" }]);
    expect(await row()).toBeUndefined();
    expect((await c.listSessions({ archived: true })).sessions.map((s) => s.sessionId)).toContain(id);
    expect((await c.unarchiveSessions([id])).results).toEqual([{ sessionId: id, outcome: "unarchived" }]);
    expect((await row())?.live).toBe(false);
    // The base address's trailing slash was dropped: no request went to a `//` path.
    expect(sent.every((r) => !new URL(r.url).pathname.startsWith("//"))).toBe(true);
  });

  test("files and workspace status", async () => {
    await using d = await fakeAgentDaemon();
    writeFileSync(join(d.workspace, "notes.md"), "# Notes\nline two\n");
    const c = createClient({ baseUrl: d.url, fetch: contractFetch });
    const listing = await c.listDirectory(".");
    expect(listing.entries).toContainEqual({ name: "notes.md", kind: "file", ignored: false });
    const file = await c.readFile("notes.md");
    expect(file.content).toBe("# Notes\nline two\n");
    expect(file.path).toBe("notes.md");
    for (const section of ["preflight", "env", "mcp", "tools", "skills", "providers"] as const) {
      const status = await c.workspaceStatus(section);
      expect(status.workspaceCwd).toBe(d.workspace);
    }
  });

  test("errors become DaemonApiError with status, code, message, hint, retryable and the body", async () => {
    await using d = await fakeAgentDaemon();
    const c = createClient({ baseUrl: d.url, fetch: contractFetch });
    const missing = await failure(c.closeSession("no-such-session"));
    expect(missing.status).toBe(404);
    expect(missing.code).toBe("session_not_found");
    expect(missing.message).toContain("no-such-session");
    expect(missing.body?.sessionId).toBe("no-such-session");
    expect(missing.retryable).toBe(false);

    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    const strict = await failure(c.setApprovalMode(sessionId, "yolo"));
    expect(strict.status).toBe(401);
    expect(strict.code).toBe("token_required");
    expect(strict.isAuthError).toBe(true);

    // Filesystem errors name their class in `errorKind`: it becomes the code, with its hint.
    const outside = await failure(c.readFile("../outside.txt"));
    expect(outside.status).toBe(400);
    expect(outside.code).toBe("path_outside_workspace");
    expect(outside.hint).toBeString();
  });

  test("the bearer is sent on every call; a missing or wrong one is a 401 DaemonApiError", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN]);
    const anonymous = createClient({ baseUrl: d.url, fetch: contractFetch });
    const denied = await failure(anonymous.capabilities());
    expect(denied.status).toBe(401);
    expect(denied.isAuthError).toBe(true);
    anonymous.setToken("wrong");
    expect((await failure(anonymous.listSessions({ workspace: d.workspace }))).status).toBe(401);

    const { sent, fetch } = recordingFetch();
    const c = createClient({ baseUrl: d.url, token: TOKEN, fetch });
    const { sessionId } = await c.createSession({ sessionScope: "thread" });
    expect((await c.setApprovalMode(sessionId, "plan")).mode).toBe("plan");
    expect((await c.setModel(sessionId, "fake-model-b")).modelId).toBe("fake-model-b");
    await c.closeSession(sessionId);
    expect(sent.length).toBeGreaterThan(3);
    for (const r of sent) expect(r.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  });

  test("folder trust calls: GET /workspace/trust, and POST /workspace/trust/request with the desired state and the bearer", async () => {
    // A stub daemon: the routes belong to the folder-trust part, the client's side of them is tested here.
    const sent: { method: string; url: string; auth: string | null; body: unknown }[] = [];
    const fetch = async (url: string, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      sent.push({ method: init?.method ?? "GET", url, auth: headers.get("authorization"), body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) });
      if (url.endsWith("/workspace/trust/request")) return Response.json({ accepted: true, desiredState: "trusted", requiresOperatorAction: false }, { status: 202 });
      return Response.json({ v: 1, workspaceCwd: "/w", folderTrustEnabled: true, effective: { state: "untrusted", source: "default" }, ignoredSettings: ["tools.approvalMode"] });
    };
    const c = createClient({ baseUrl: "http://127.0.0.1:9", token: TOKEN, fetch });
    expect(await c.workspaceTrust()).toMatchObject({ effective: { state: "untrusted" }, ignoredSettings: ["tools.approvalMode"] });
    expect(await c.requestWorkspaceTrust("trusted")).toEqual({ accepted: true, desiredState: "trusted", requiresOperatorAction: false });
    expect(sent).toEqual([
      { method: "GET", url: "http://127.0.0.1:9/workspace/trust", auth: `Bearer ${TOKEN}`, body: undefined },
      { method: "POST", url: "http://127.0.0.1:9/workspace/trust/request", auth: `Bearer ${TOKEN}`, body: { desiredState: "trusted" } },
    ]);
    const older = createClient({ baseUrl: "http://127.0.0.1:9", fetch: async () => Response.json({ error: "Not found" }, { status: 404 }) });
    expect((await failure(older.workspaceTrust())).status).toBe(404);
  });
});
