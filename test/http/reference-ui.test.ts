/**
 * The routes the reference daemon's web UI reads in a normal session (`routes/reference-ui.ts`):
 * their answers whole, their capability tags (and no tag for a feature that is not there), and
 * hostile spellings: a trailing slash, HEAD, an oversized query, bad percent-encoding. Every answer
 * is also checked against the daemon's own OpenAPI document (test/helpers/contract.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { rawRequest } from "../helpers/raw-http.ts";

const TOKEN = "ui-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon(["--token", TOKEN], { settings: { policy: { permissionStrategy: "consensus", consensusQuorum: 2 } } });
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

const get = async (path: string, init: RequestInit = {}) => {
  const res = await d.fetch(path, { ...init, headers: { ...AUTH, ...init.headers } });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), body: text === "" ? null : (JSON.parse(text) as unknown as Record<string, unknown>) };
};

/** The routes that answer the same whatever the session, with what they answer. */
function constantAnswers(): [string, unknown][] {
  const id = workspaceId(d.workspace);
  return [
    ["/brand", { name: "svc", version: d.config.version }],
    ["/workspace/models", { models: [] }],
    ["/goals", { v: 1, goals: [], droppedCount: 0 }],
    ["/scheduled-tasks", { v: 1, tasks: [] }],
    ["/workspace/extensions", { v: 1, workspaceCwd: d.workspace, initialized: true, extensions: [] }],
    ["/workspace/extensions/operations", { v: 1, operations: [] }],
    [`/workspaces/${id}/extensions`, { v: 1, workspaceId: id, workspaceCwd: d.workspace, trusted: false, desiredGeneration: 0, appliedGeneration: 0, extensions: [] }],
    [`/workspaces/${encodeURIComponent(d.workspace)}/extensions`, { v: 1, workspaceId: id, workspaceCwd: d.workspace, trusted: false, desiredGeneration: 0, appliedGeneration: 0, extensions: [] }],
  ];
}

describe("answers", () => {
  test("brand, models, goals, scheduled tasks and extensions answer their shapes, empty where the feature is not offered", async () => {
    for (const [path, expected] of constantAnswers()) {
      const reply = await get(path);
      expect({ path, status: reply.status, body: reply.body as unknown }).toEqual({ path, status: 200, body: expected });
    }
  });

  test("settings list the daemon's own settings with their effective values, and nothing secret", async () => {
    const reply = await get("/workspace/settings");
    expect(reply.status).toBe(200);
    const settings = reply.body!.settings as { key: string; values: { effective?: unknown } }[];
    expect(Object.fromEntries(settings.map((s) => [s.key, s.values]))).toEqual({
      agent: { effective: "generic" },
      "policy.permissionStrategy": { effective: "consensus" },
      "policy.consensusQuorum": { effective: 2 },
      "security.folderTrust.enabled": { effective: true },
    });
    const text = JSON.stringify(reply.body);
    expect(text).not.toContain(TOKEN);
    for (const word of ["mcpServers", "apiKey", "env"]) expect(text).not.toContain(`"${word}`);
  });

  test("/workspaces/:workspace/mcp is /workspace/mcp for this workspace, by id or by path", async () => {
    const bare = await get("/workspace/mcp");
    for (const selector of [workspaceId(d.workspace), encodeURIComponent(d.workspace)]) expect(await get(`/workspaces/${selector}/mcp`)).toEqual(bare);
  });

  test("an unknown workspace is 404 workspace_not_found; a selector that is neither id nor path is 400", async () => {
    for (const route of ["mcp", "extensions"]) {
      expect(await get(`/workspaces/0123456789abcdef/${route}`)).toMatchObject({ status: 404, body: { code: "workspace_not_found" } });
      expect(await get(`/workspaces/${encodeURIComponent("/not/this/one")}/${route}`)).toMatchObject({ status: 404, body: { code: "workspace_not_found" } });
      expect(await get(`/workspaces/nope/${route}`)).toMatchObject({ status: 400, body: { code: "invalid_workspace" } });
    }
  });

  test("a live session's goal is none; an unknown session is 404", async () => {
    const { sessionId } = await d.createSession({ sessionScope: "thread" }, AUTH);
    expect(await get(`/session/${sessionId}/goal`)).toMatchObject({ status: 200, body: { snapshot: { v: 2, goal: null, activity: "idle" } } });
    expect(await get("/session/nope/goal")).toMatchObject({ status: 404, body: { code: "session_not_found" } });
  });

  test("PATCH /workspace/models is strict, checks its body like the reference, and finds no configuration to change", async () => {
    const patch = (body: unknown, headers: Record<string, string> = AUTH) => d.json("PATCH", "/workspace/models", body, headers);
    const key = "a".repeat(64);
    for (const body of [{}, { key: "A".repeat(64), contextWindowSize: 5 }, { key, contextWindowSize: 0 }, { key, contextWindowSize: 1.5 }, { key, contextWindowSize: "5" }, { key: key + "a", contextWindowSize: 5 }, [key]]) {
      const reply = await patch(body);
      expect({ body, status: reply.status, answer: reply.body }).toEqual({ body, status: 400, answer: { error: "Invalid model key or context window size" } });
    }
    for (const contextWindowSize of [1, 10_000_000, null])
      expect(await patch({ key, contextWindowSize })).toMatchObject({ status: 409, body: { error: "Model configuration changed or is ambiguous. Reload and try again." } });
    expect((await patch({ key, contextWindowSize: 5 }, {})).status).toBe(401);
  });
});

describe("capability tags", () => {
  test("brand and settings are advertised; features that are not there are not", async () => {
    const features = (await get("/capabilities")).body!.features as string[];
    expect(features).toContain("web_shell_brand");
    expect(features).toContain("workspace_settings");
    expect(features).toContain("workspace_extensions");
    for (const absent of ["extension_management_v2", "scheduled_task_session_reuse", "session_goal", "goals"]) expect(features).not.toContain(absent);
  });
});

describe("hostile spellings", () => {
  const paths = () => [...constantAnswers().map(([path]) => path), "/workspace/settings", `/workspaces/${workspaceId(d.workspace)}/mcp`];

  test("a trailing slash is a JSON 404, never the route", async () => {
    for (const path of paths()) expect({ path, ...(await get(`${path}/`)) }).toMatchObject({ path, status: 404, body: { code: "route_not_found" } });
  });

  test("HEAD answers the GET's status and type with no body", async () => {
    for (const path of paths()) {
      const res = await rawRequest(d.port, { method: "HEAD", path, headers: [["Host", `127.0.0.1:${d.port}`], ["Authorization", AUTH.Authorization]] });
      expect({ path, status: res.status, bytes: res.body.byteLength }).toEqual({ path, status: 200, bytes: 0 });
      expect(res.headers.get("content-type")).toContain("application/json");
    }
  });

  test("an oversized query is ignored by routes that take none, and answers the same", async () => {
    const query = `?x=${"q".repeat(6000)}&y=%00`;
    for (const [path, expected] of constantAnswers()) expect({ path, ...(await get(path + query)) }).toMatchObject({ path, status: 200, body: expected });
  });

  test("bad percent-encoding is 400 Malformed URL encoding", async () => {
    for (const path of ["/workspaces/%E0%A4%A/mcp", "/workspaces/%zz/extensions", "/session/%ff/goal", "/brand%"]) {
      const res = await rawRequest(d.port, { path, headers: [["Host", `127.0.0.1:${d.port}`], ["Authorization", AUTH.Authorization]] });
      expect({ path, status: res.status, body: JSON.parse(res.text) }).toEqual({ path, status: 400, body: { error: "Malformed URL encoding", code: "invalid_request" } });
    }
  });
});
