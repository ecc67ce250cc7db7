/**
 * Runtime MCP servers (`mcp_server_runtime_mutation`) with the built-in agent behind the daemon,
 * against the sources or the binary: `POST /workspace/mcp/servers` connects a server in the running
 * agent at once (used in the next turn, written nowhere, kept by a settings reload), published as
 * `mcp_server_added`; `DELETE` takes it out (`mcp_server_removed`) and puts back the declared server
 * it stood over. Refusals: no or unknown client id, bad names and declarations, members a runtime
 * server cannot take, an untrusted workspace, a full `enforce` budget, a server that does not start;
 * each changes nothing. A trust revocation stops the runtime servers.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { mcpFixture, mcpServerStates, mcpTurn, offeredTools, openMcpSession, stdioServer, type McpSession } from "../helpers/mcp-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "m-mcp-runtime-token-0123456789";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/** A workspace, a data dir whose settings are `host` (plus no auto title, yolo), and the mock model. */
const fixture = (host: Record<string, unknown> = {}) => mcpFixture({ token: TOKEN, prefix: "m-rt", host });
const call = (d: TestDaemon, method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) => jsonRequest(d.url, method, path, body, headers);
const as = (s: McpSession) => ({ ...AUTH, "X-Svc-Client-Id": s.clientId });
const openSession = (d: TestDaemon) => openMcpSession(d, AUTH);
const turn = (d: TestDaemon, s: McpSession, text: string) => mcpTurn(d, s, text, AUTH);
const servers = (d: TestDaemon) => mcpServerStates(d, AUTH);

describe("runtime MCP servers", () => {
  test("an added server is used in the next turn, written nowhere and kept by a reload; removed, it is gone", async () => {
    await using f = fixture();
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    const hostBefore = readFileSync(f.hostFile, "utf8");

    const added = await call(d, "POST", "/workspace/mcp/servers", { name: "rt", config: stdioServer() }, as(s));
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ name: "rt", transport: "stdio", replaced: false, shadowedSettings: false, toolCount: expect.any(Number), originatorClientId: s.clientId });
    expect(added.body.toolCount).toBeGreaterThan(0);
    const event = await until(() => s.events.frames.find((fr) => fr.event === "mcp_server_added"), 5000, "mcp_server_added");
    expect(event.data).toMatchObject({ name: "rt", transport: "stdio", shadowedSettings: false, originatorClientId: s.clientId });
    expect(event.id).toBeDefined();
    expect(await servers(d)).toEqual(["rt:connected"]);
    expect(readFileSync(f.hostFile, "utf8")).toBe(hostBefore);

    f.model.enqueue({ kind: "tools", calls: [{ name: "mcp__rt__echo", args: { text: "runtime" } }] }, { kind: "text", text: "ok" });
    expect((await turn(d, s, "use it")).event).toBe("turn_complete");
    const result = s.events.frames.find((fr) => fr.event === "session_update" && fr.data.update.sessionUpdate === "tool_call_update" && fr.data.update.status === "completed");
    expect(JSON.stringify(result!.data.update.content)).toContain("echo: runtime");

    // A settings change reloads the agent's servers: the runtime one stays.
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/declared", { scope: "user", config: stdioServer() })).status).toBe(200);
    f.model.enqueue({ kind: "text", text: "reloaded" });
    await turn(d, s, "after reload");
    expect(offeredTools(f.model)).toContain("mcp__rt__echo");
    expect((await servers(d)).sort()).toEqual(["declared:connected", "rt:connected"]);

    const removed = await call(d, "DELETE", "/workspace/mcp/servers/rt", undefined, as(s));
    expect(removed.body).toEqual({ name: "rt", removed: true, wasShadowingSettings: false, originatorClientId: s.clientId });
    expect((await until(() => s.events.frames.find((fr) => fr.event === "mcp_server_removed"), 5000, "mcp_server_removed")).data).toEqual({ name: "rt", wasShadowingSettings: false, originatorClientId: s.clientId });
    f.model.enqueue({ kind: "text", text: "gone" });
    await turn(d, s, "after remove");
    expect(offeredTools(f.model)).not.toContain("mcp__rt__echo");
    expect(await servers(d)).toEqual(["declared:connected"]);

    // Nothing left to remove: an answer, not an error, and no event.
    expect((await call(d, "DELETE", "/workspace/mcp/servers/rt", undefined, as(s))).body).toEqual({ name: "rt", skipped: true, reason: "not_present" });
    expect(s.events.frames.filter((fr) => fr.event === "mcp_server_removed")).toHaveLength(1);
    s.events.close();
  });

  test("a runtime server stands over the declared one of its name; removed, the declared one is back", async () => {
    const declaredPids = tempDir("m-rt-pids-");
    const pidFile = join(declaredPids.path, "declared");
    await using f = fixture({ mcpServers: { test: stdioServer({ env: { MCP_TEST_PID_FILE: pidFile } }) } });
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "discovered" });
    await turn(d, s, "hello");
    expect(await servers(d)).toEqual(["test:connected"]);
    const started = () => readFileSync(pidFile, "utf8").trim().split("\n").length;
    expect(started()).toBe(1);

    const added = await call(d, "POST", "/workspace/mcp/servers", { name: "test", config: stdioServer({ description: "runtime" }) }, as(s));
    expect(added.body).toMatchObject({ name: "test", replaced: true, shadowedSettings: true });
    expect((await call(d, "GET", "/workspace/mcp")).body.servers).toEqual([expect.objectContaining({ name: "test", description: "runtime", mcpStatus: "connected" })]);

    const removed = await call(d, "DELETE", "/workspace/mcp/servers/test", undefined, as(s));
    expect(removed.body).toMatchObject({ removed: true, wasShadowingSettings: true });
    const cells = (await call(d, "GET", "/workspace/mcp")).body.servers as Array<Record<string, unknown>>;
    expect(cells).toEqual([expect.objectContaining({ name: "test", mcpStatus: "connected" })]);
    expect(cells[0]!.description).toBeUndefined();
    expect(started()).toBe(2);
    s.events.close();
    await declaredPids[Symbol.asyncDispose]();
  });

  test("refusals change nothing: client ids, names, declarations, trust, budget, a server that does not start", async () => {
    await using f = fixture({ mcpServers: { off: stdioServer() }, mcp: { excluded: ["off"] } });
    await using d = await f.start(["--trust-workspace", "--mcp-client-budget", "1"]);
    const s = await openSession(d);
    const post = (body: unknown, headers: Record<string, string> = as(s)) => call(d, "POST", "/workspace/mcp/servers", body, headers);
    const cases: Array<[unknown, Record<string, string>, number, string]> = [
      [{ name: "a", config: stdioServer() }, AUTH, 400, "missing_client_id"],
      [{ name: "a", config: stdioServer() }, { ...AUTH, "X-Svc-Client-Id": "client_unknown" }, 400, "invalid_client_id"],
      [{ name: "bad.name", config: stdioServer() }, as(s), 400, "invalid_server_name"],
      [{ name: "x".repeat(33), config: stdioServer() }, as(s), 400, "invalid_server_name"],
      [{ name: "a", config: null }, as(s), 400, "missing_required_field"],
      [{ name: "a", config: stdioServer({ env: { A: "b" } }) }, as(s), 400, "invalid_config"],
      [{ name: "a", config: stdioServer({ cwd: "/tmp" }) }, as(s), 400, "invalid_config"],
      [{ name: "a", config: { httpUrl: "http://127.0.0.1:9/", headers: { A: "b" } } }, as(s), 400, "invalid_config"],
      [{ name: "a", config: { command: "relative/server" } }, as(s), 400, "invalid_config"],
      [{ name: "a", config: { ...stdioServer(), trust: true } }, as(s), 400, "invalid_config"],
      [{ name: "off", config: stdioServer() }, as(s), 400, "invalid_config"],
    ];
    for (const [body, headers, status, code] of cases) {
      const answer = await post(body, headers);
      expect([answer.status, answer.body.code, JSON.stringify(body)]).toEqual([status, code, JSON.stringify(body)]);
    }
    expect((await call(d, "POST", "/workspace/mcp/servers", { name: "a", config: stdioServer() }, { "X-Svc-Client-Id": s.clientId })).status).toBe(401);

    const failed = await post({ name: "dead", config: { command: "/nonexistent/m-rt-server" } });
    expect([failed.status, failed.body.code, failed.body.serverName]).toEqual([502, "mcp_server_spawn_failed", "dead"]);
    expect(await servers(d)).toEqual(["off:disconnected"]);
    expect((await post({ name: "one", config: stdioServer() })).status).toBe(200);
    const full = await post({ name: "two", config: stdioServer() });
    expect([full.status, full.body.code, full.body.serverName]).toEqual([409, "mcp_budget_would_exceed", "two"]);
    expect(await servers(d)).toEqual(["off:disconnected", "one:connected"]);
    expect(s.events.frames.filter((fr) => fr.event === "mcp_server_added").map((fr) => fr.data.name)).toEqual(["one"]);
    s.events.close();
  });

  test("untrusted: refused; a revocation stops the runtime servers", async () => {
    await using f = fixture();
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    expect((await call(d, "POST", "/workspace/mcp/servers", { name: "rt", config: stdioServer() }, as(s))).status).toBe(200);
    expect((await call(d, "POST", "/workspace/trust/request", { desiredState: "untrusted" })).status).toBe(202);
    f.model.enqueue({ kind: "text", text: "revoked" });
    await turn(d, s, "after revoke");
    expect(offeredTools(f.model)).not.toContain("mcp__rt__echo");
    expect(await servers(d)).toEqual([]);
    const refused = await call(d, "POST", "/workspace/mcp/servers", { name: "rt", config: stdioServer() }, as(s));
    expect([refused.status, refused.body.code]).toEqual([403, "untrusted_workspace"]);
    expect((await call(d, "DELETE", "/workspace/mcp/servers/rt", undefined, as(s))).status).toBe(403);
    s.events.close();
  });
});
