/**
 * Creating, updating and deleting subagent definitions (`POST /workspace/agents`,
 * `POST|DELETE /workspace/agents/:agentType`), the reference daemon's shapes, with no agent running:
 * a definition written reads back exactly (a description holding quotes, `---`, a line break or a
 * would-be key stays one value), each change is announced as `agent_changed`, the built-in is
 * read-only, an untrusted workspace's folder is not written, a folder reached through a link is not
 * written, and bad bodies are refused without a file.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { changedRules, updateTrustStore } from "../../src/trust/index.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "agents-write-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
// The user's definitions land in the test process's data dir: they go with each test.
afterEach(() => rmSync(join(process.env.SVC_HOME!, "agents"), { recursive: true, force: true }));

const HOSTILE = 'Reviews "code" — carefully\n---\ntools: [run_shell]\nname: evil # not a key';

describe("subagent definitions written through the API", () => {
  test("create, read back, update, delete; each change announced", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    const { sessionId } = await d.createSession({}, AUTH);
    const body = { scope: "workspace", name: "reviewer", description: HOSTILE, systemPrompt: "Review.\n---\nname: still the prompt\n", tools: ["read_file", "grep"], color: "blue", maxTurns: 7 };
    const created = await d.json("POST", "/workspace/agents", body, AUTH);
    expect(created.status).toBe(201);
    const file = join(d.workspace, ".svc", "agents", "reviewer.md");
    expect(created.body).toEqual({
      ok: true,
      agent: { kind: "agent", name: "reviewer", description: HOSTILE, level: "project", isBuiltin: false, hasTools: true, tools: ["read_file", "grep"], color: "blue", maxTurns: 7, filePath: file, systemPrompt: "Review.\n---\nname: still the prompt" },
    });
    expect((await d.json("GET", "/workspace/agents/reviewer", undefined, AUTH)).body).toEqual(created.body.agent);
    expect((await d.json("GET", "/workspace/agents/reviewer?scope=workspace", undefined, AUTH)).body.name).toBe("reviewer");
    expect((await d.json("GET", "/workspace/agents/reviewer?scope=global", undefined, AUTH)).status).toBe(404);
    expect((await d.json("POST", "/workspace/agents", body, AUTH))).toMatchObject({ status: 409, body: { code: "agent_already_exists" } });

    const user = await d.json("POST", "/workspace/agents", { scope: "global", name: "helper", description: "Helps", systemPrompt: "Help." }, AUTH);
    expect(user).toMatchObject({ status: 201, body: { agent: { level: "user", name: "helper" } } });

    const updated = await d.json("POST", "/workspace/agents/reviewer", { description: "Reviews", tools: [] }, AUTH);
    expect(updated).toMatchObject({ status: 200, body: { ok: true, changed: true, agent: { description: "Reviews", hasTools: false, tools: [], color: "blue", maxTurns: 7 } } });
    expect(await d.json("POST", "/workspace/agents/reviewer", { description: "Reviews" }, AUTH)).toMatchObject({ status: 200, body: { changed: false } });
    expect(readFileSync(file, "utf8")).toContain('description: "Reviews"');

    expect((await d.json("DELETE", "/workspace/agents/reviewer", undefined, AUTH)).status).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect(await d.json("DELETE", "/workspace/agents/reviewer", undefined, AUTH)).toMatchObject({ status: 404, body: { code: "agent_not_found" } });

    await using events = await d.events(sessionId, { ...AUTH, "Last-Event-ID": "0" });
    const changes = await events.waitFor("agent_changed", () => events.frames.filter((f) => f.event === "agent_changed").length >= 4, 5000);
    expect(changes).toBeDefined();
    expect(events.frames.filter((f) => f.event === "agent_changed").map((f) => f.data)).toEqual([
      { change: "created", name: "reviewer", level: "project" },
      { change: "created", name: "helper", level: "user" },
      { change: "updated", name: "reviewer", level: "project" },
      { change: "deleted", name: "reviewer", level: "project" },
    ]);
  });

  test("refusals write nothing: bad bodies, the built-in, an untrusted workspace, a linked folder, no token", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    const ok = { scope: "workspace", name: "good", description: "d", systemPrompt: "p" };
    const cases: Array<[unknown, number, string]> = [
      [{ ...ok, scope: "everywhere" }, 400, "invalid_scope"],
      [{ ...ok, scope: undefined }, 400, "invalid_scope"],
      [{ ...ok, name: "x" }, 422, "invalid_config"],
      [{ ...ok, name: "bad name" }, 422, "invalid_config"],
      [{ ...ok, name: "general-purpose" }, 422, "invalid_config"],
      [{ ...ok, name: "generate" }, 422, "invalid_config"],
      [{ ...ok, description: "   " }, 422, "invalid_config"],
      [{ ...ok, systemPrompt: "" }, 422, "invalid_config"],
      [{ ...ok, systemPrompt: "x".repeat(40_000) }, 422, "invalid_config"],
      [{ ...ok, tools: "read_file" }, 422, "invalid_config"],
      [{ ...ok, color: "ultraviolet" }, 422, "invalid_config"],
      [{ ...ok, maxTurns: 0 }, 422, "invalid_config"],
      [{ ...ok, mcpServers: {} }, 422, "invalid_config"],
      // Fields the reader would drop are refused, not lost.
      [{ ...ok, approvalMode: "yolo" }, 422, "invalid_config"],
      [{ ...ok, background: true }, 422, "invalid_config"],
      // 64 letters of four bytes each: a valid agent type, but no file name fits it.
      [{ ...ok, name: "𝐀".repeat(64) }, 422, "invalid_config"],
      [{ ...ok, description: "lone \ud800 surrogate" }, 422, "invalid_config"],
    ];
    for (const [body, status, code] of cases) {
      const answer = await d.json("POST", "/workspace/agents", body, AUTH);
      expect([JSON.stringify(body).slice(0, 80), answer.status, answer.body.code]).toEqual([JSON.stringify(body).slice(0, 80), status, code]);
    }
    expect(existsSync(join(d.workspace, ".svc", "agents")) ? readdirSync(join(d.workspace, ".svc", "agents")) : []).toEqual([]);
    expect(await d.json("POST", "/workspace/agents/general-purpose", { description: "mine" }, AUTH)).toMatchObject({ status: 403, body: { code: "agent_readonly" } });
    expect(await d.json("DELETE", "/workspace/agents/general-purpose", undefined, AUTH)).toMatchObject({ status: 403, body: { code: "agent_readonly" } });
    expect(await d.json("POST", "/workspace/agents/nobody", { description: "x" }, AUTH)).toMatchObject({ status: 404, body: { code: "agent_not_found" } });
    expect((await d.json("POST", "/workspace/agents", ok)).status).toBe(401);
    expect(await d.json("POST", "/workspace/agents", ok, { ...AUTH, "X-Svc-Client-Id": "client_unknown" })).toMatchObject({ status: 400, body: { code: "invalid_client_id" } });

    // A workspace whose .svc/agents links elsewhere: nothing is written there.
    await using elsewhere = tempDir("a-agents-elsewhere-");
    mkdirSync(join(d.workspace, ".svc"), { recursive: true });
    symlinkSync(elsewhere.path, join(d.workspace, ".svc", "agents"));
    expect(await d.json("POST", "/workspace/agents", ok, AUTH)).toMatchObject({ status: 409, body: { code: "agent_folder_unsafe" } });
    expect(readdirSync(elsewhere.path)).toEqual([]);
  });

  test("creates at once never pass the folder's bound; an update racing a delete does not bring the file back", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    const dir = join(d.workspace, ".svc", "agents");
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 62; i++) writeFileSync(join(dir, `pre${String(i).padStart(2, "0")}.md`), `---\nname: pre${i}\ndescription: d\n---\np\n`);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => d.json("POST", "/workspace/agents", { scope: "workspace", name: `race${i}`, description: "d", systemPrompt: "p" }, AUTH)));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(2);
    expect(readdirSync(dir).filter((n) => n.endsWith(".md"))).toHaveLength(64);
    for (const r of replies.filter((x) => x.status === 201)) expect((await d.json("GET", `/workspace/agents/${r.body.agent.name}`, undefined, AUTH)).status).toBe(200);

    const [updated, deleted] = await Promise.all([
      d.json("POST", "/workspace/agents/pre0", { description: "changed" }, AUTH),
      d.json("DELETE", "/workspace/agents/pre0", undefined, AUTH),
    ]);
    expect(deleted.status).toBe(204);
    // Whichever came first, the delete has the last word: no file.
    expect([200, 404]).toContain(updated.status);
    expect(existsSync(join(dir, "pre00.md"))).toBe(false);
  });

  test("creates of one name at once: one is made, the others are 409", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => d.json("POST", "/workspace/agents", { scope: "workspace", name: "twin", description: `copy ${i}`, systemPrompt: `p${i}` }, AUTH)));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const made = replies.find((r) => r.status === 201)!.body.agent;
    expect((await d.json("GET", "/workspace/agents/twin", undefined, AUTH)).body).toEqual(made);
    expect(readdirSync(join(d.workspace, ".svc", "agents"))).toEqual(["twin.md"]);
  });

  test("text JSON leaves raw reads back; null removes a member; keys svc does not read survive an update", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    // U+2028 and U+2029 end a line for the reader (escaped); DEL, C1 controls and a BOM go as they are.
    const description = "one\u2028two\u2029three \u007f\u0085\ufeff end";
    const created = await d.json("POST", "/workspace/agents", { scope: "workspace", name: "seps", description, systemPrompt: "p", model: "m1", color: "red" }, AUTH);
    expect(created).toMatchObject({ status: 201, body: { agent: { description, model: "m1", color: "red" } } });
    expect((await d.json("GET", "/workspace/agents/seps", undefined, AUTH)).body.description).toBe(description);

    const removed = await d.json("POST", "/workspace/agents/seps", { model: null, color: null }, AUTH);
    expect(removed).toMatchObject({ status: 200, body: { changed: true } });
    expect(removed.body.agent.model).toBeUndefined();
    expect(removed.body.agent.color).toBeUndefined();
    expect((await d.json("GET", "/workspace/agents/seps", undefined, AUTH)).body.model).toBeUndefined();
    expect(await d.json("POST", "/workspace/agents/seps", { maxTurns: null }, AUTH)).toMatchObject({ status: 200, body: { changed: false } });

    // A definition written by Qwen Code, with keys svc does not read: an update keeps them as they were.
    const file = join(d.workspace, ".svc", "agents", "kept.md");
    writeFileSync(file, "---\nname: kept\ndescription: old\napprovalMode: yolo\nhooks:\n  - PreToolUse\n---\nYou keep.\n");
    expect(await d.json("POST", "/workspace/agents/kept", { description: "new" }, AUTH)).toMatchObject({ status: 200, body: { changed: true, agent: { description: "new" } } });
    const text = readFileSync(file, "utf8");
    expect(text).toContain("\napprovalMode: yolo\nhooks:\n  - PreToolUse\n---\n");
    expect(text).toContain('description: "new"');
  });

  test("the /workspaces/:workspace/ forms write that workspace's project only", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    const q = `/workspaces/${encodeURIComponent(d.workspace)}/agents`;
    const body = { name: "q-agent", description: "Q", systemPrompt: "You are Q." };
    const file = join(d.workspace, ".svc", "agents", "q-agent.md");
    expect(await d.json("POST", q, body, AUTH)).toMatchObject({ status: 201, body: { agent: { level: "project", filePath: file } } });
    expect(await d.json("POST", q, { ...body, name: "q-user", scope: "global" }, AUTH)).toMatchObject({ status: 400, body: { code: "global_scope_not_supported_for_workspace_route" } });
    expect(await d.json("POST", q, { ...body, name: "q-bad", scope: "elsewhere" }, AUTH)).toMatchObject({ status: 400, body: { code: "invalid_scope" } });
    expect((await d.json("POST", q, body)).status).toBe(401);
    expect(await d.json("GET", `${q}/q-agent?scope=project`, undefined, AUTH)).toMatchObject({ status: 200, body: { name: "q-agent" } });
    expect(await d.json("GET", `${q}/q-agent?scope=global`, undefined, AUTH)).toMatchObject({ status: 400, body: { code: "global_scope_not_supported_for_workspace_route" } });
    expect(await d.json("POST", `${q}/q-agent`, { description: "Q2" }, AUTH)).toMatchObject({ status: 200, body: { changed: true, agent: { description: "Q2" } } });
    // The user's definitions are not reached from here.
    expect((await d.json("POST", "/workspace/agents", { ...body, name: "mine", scope: "global" }, AUTH)).status).toBe(201);
    expect(await d.json("DELETE", `${q}/mine`, undefined, AUTH)).toMatchObject({ status: 404, body: { code: "agent_not_found" } });
    expect((await d.json("DELETE", `${q}/q-agent`, undefined, AUTH)).status).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect(await d.json("POST", "/workspaces/%2Fnowhere/agents", body, AUTH)).toMatchObject({ status: 404, body: { code: "workspace_not_found" } });
  });

  test("a change of the user's definitions reaches every workspace's sessions; a project's, its own workspace's only", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    await using other = tempDir("agents-other-ws-");
    // Trusted, as a session there needs (what `svc trust` writes).
    const otherPath = realpathSync(other.path);
    updateTrustStore(process.env.SVC_HOME!, (rules) => changedRules(rules, otherPath, "trusted"));
    expect((await d.json("POST", "/workspaces", { cwd: otherPath }, AUTH)).status).toBe(201);
    const created = await d.json("POST", "/session", { cwd: otherPath, sessionScope: "thread" }, AUTH);
    expect(created.status).toBe(200);
    await using events = await d.events(created.body.sessionId as string, { ...AUTH, "Last-Event-ID": "0" });
    expect((await d.json("POST", "/workspace/agents", { scope: "workspace", name: "local-only", description: "d", systemPrompt: "p" }, AUTH)).status).toBe(201);
    expect((await d.json("POST", "/workspace/agents", { scope: "global", name: "shared", description: "d", systemPrompt: "p" }, AUTH)).status).toBe(201);
    await events.waitFor("agent_changed", () => events.frames.some((f) => f.event === "agent_changed"), 5000);
    expect(events.frames.filter((f) => f.event === "agent_changed").map((f) => f.data)).toEqual([{ change: "created", name: "shared", level: "user" }]);
  });

  test("an untrusted workspace: its folder is not written, the user's is", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN]);
    expect(await d.json("POST", "/workspace/agents", { scope: "workspace", name: "local", description: "d", systemPrompt: "p" }, AUTH)).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
    expect(existsSync(join(d.workspace, ".svc", "agents"))).toBe(false);
    expect((await d.json("POST", "/workspace/agents", { scope: "global", name: "mine", description: "d", systemPrompt: "p" }, AUTH)).status).toBe(201);
    // The project's level, named or through the qualified form, is refused there too.
    expect(await d.json("POST", `/workspaces/${encodeURIComponent(d.workspace)}/agents`, { name: "local", description: "d", systemPrompt: "p" }, AUTH)).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
    expect(await d.json("POST", "/workspace/agents/mine?scope=workspace", { description: "x" }, AUTH)).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
    expect(await d.json("DELETE", "/workspace/agents/mine?scope=workspace", undefined, AUTH)).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
    expect(existsSync(join(d.workspace, ".svc", "agents"))).toBe(false);
  });
});
