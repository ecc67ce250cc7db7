/**
 * MCP server management with the built-in agent behind the daemon (issue 26, item 5), against the
 * sources or the binary: a server added through `PUT /workspace/config/mcp/servers/:name` is used
 * in the session's next turn without a restart, and one removed is gone from the next; secrets are
 * never answered nor logged, and sent back redacted they keep their stored value; bad bodies are
 * 400 and leave the settings file as it was; a workspace's own servers start only while it is
 * trusted, and an untrusted workspace's settings cannot be changed through the API.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { mcpFixture, mcpTurn, offeredTools, openMcpSession, stdioServer, type McpSession } from "../helpers/mcp-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "m-mcp-config-token-0123456789";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const SECRET = "m-secret-value-9f8e7d";

/** A workspace whose `.svc/settings.json` is `local` (none when null), a data dir of its own, and the mock model. */
const fixture = (local: Record<string, unknown> | null = null) => mcpFixture({ token: TOKEN, prefix: "m-mcp", local });
const call = (d: TestDaemon, method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) => jsonRequest(d.url, method, path, body, headers);
const openSession = (d: TestDaemon) => openMcpSession(d, AUTH);
const turn = (d: TestDaemon, s: McpSession, text: string) => mcpTurn(d, s, text, AUTH);

describe("MCP server management", () => {
  test("a server added through the API is used in the next turn without a restart, and one removed is gone from the next", async () => {
    await using f = fixture();
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "no tools yet" });
    expect((await turn(d, s, "hello")).event).toBe("turn_complete");
    expect(offeredTools(f.model).some((n) => n.startsWith("mcp__"))).toBe(false);

    const put = await call(d, "PUT", "/workspace/config/mcp/servers/test", { scope: "user", config: stdioServer({ env: { MCP_TEST_SECRET: SECRET } }) });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: "test", scope: "user", activation: "reconciling", config: { command: process.execPath, env: { MCP_TEST_SECRET: "__redacted__" } } });

    f.model.enqueue({ kind: "tools", calls: [{ name: "mcp__test__echo", args: { text: "added at runtime" } }] }, { kind: "text", text: "ok" });
    expect((await turn(d, s, "use mcp")).event).toBe("turn_complete");
    const result = s.events.frames.find((fr) => fr.event === "session_update" && fr.data.update.sessionUpdate === "tool_call_update" && fr.data.update.status === "completed");
    expect(JSON.stringify(result!.data.update.content)).toContain("echo: added at runtime");
    const mcp = await call(d, "GET", "/workspace/runtime/mcp");
    expect(mcp.body.servers).toEqual([expect.objectContaining({ kind: "mcp_server", name: "test", mcpStatus: "connected" })]);

    // Disabled: listed as such, its tools no longer offered; enabled again: back.
    expect((await call(d, "POST", "/workspace/config/mcp/test/disable")).body).toMatchObject({ serverName: "test", action: "disable", changed: true, activation: "reconciling" });
    f.model.enqueue({ kind: "text", text: "disabled" });
    await turn(d, s, "after disable");
    expect(offeredTools(f.model)).not.toContain("mcp__test__echo");
    expect((await call(d, "GET", "/workspace/mcp")).body.servers).toEqual([expect.objectContaining({ name: "test", disabled: true, disabledReason: "config" })]);

    const removed = await call(d, "DELETE", "/workspace/config/mcp/servers/test?scope=user");
    expect(removed.body).toEqual({ name: "test", scope: "user", activation: "reconciling" });
    f.model.enqueue({ kind: "text", text: "gone" });
    await turn(d, s, "after remove");
    expect(offeredTools(f.model)).not.toContain("mcp__test__echo");
    expect(JSON.parse(readFileSync(f.hostFile, "utf8"))).toMatchObject({ ui: { autoTitle: false }, mcpServers: {} });
    s.events.close();
  });

  test("secrets are never answered nor logged; sent back redacted they keep the stored value", async () => {
    await using f = fixture();
    await using d = await f.start();
    const headers = { Authorization: `Bearer ${SECRET}-h` };
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/remote", { scope: "user", config: { httpUrl: "http://127.0.0.1:9/mcp", headers } })).status).toBe(200);
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/local", { scope: "user", config: stdioServer({ env: { A: SECRET, B: "b" } }) })).status).toBe(200);
    // Edited from what the daemon answered: A sent back redacted, B changed.
    const listed = await call(d, "GET", "/workspace/config/mcp/servers");
    expect(listed.status).toBe(200);
    expect(listed.body.user.local.env).toEqual({ A: "__redacted__", B: "__redacted__" });
    expect(listed.body.effective.remote.headers).toEqual({ Authorization: "__redacted__" });
    const edited = await call(d, "PUT", "/workspace/config/mcp/servers/local", { scope: "user", config: { ...listed.body.user.local, env: { A: "__redacted__", B: "new-b" } } });
    expect(edited.status).toBe(200);
    const stored = JSON.parse(readFileSync(f.hostFile, "utf8"));
    expect(stored.mcpServers.local.env).toEqual({ A: SECRET, B: "new-b" });
    expect(stored.mcpServers.remote.headers).toEqual(headers);
    expect(stored.ui).toEqual({ autoTitle: false });
    for (const answer of [listed, edited]) expect(JSON.stringify(answer.body)).not.toContain(SECRET);
    expect(d.logs.join("\n")).not.toContain(SECRET);
  });

  test("bad bodies are 400 and leave the settings file as it was; mutations need the token", async () => {
    await using f = fixture();
    await using d = await f.start();
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/keep", { scope: "user", config: stdioServer() })).status).toBe(200);
    const before = readFileSync(f.hostFile, "utf8");
    const cases: Array<[string, unknown, string]> = [
      ["keep", { scope: "user", config: { command: "relative/server" } }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: { ...stdioServer(), timeout: 5 } }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: { url: "file:///etc/passwd" } }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: { ...stdioServer(), url: "http://127.0.0.1:9/" } }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: stdioServer({ env: { "BAD NAME": "x" } }) }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: stdioServer({ args: Array.from({ length: 65 }, () => "a") }) }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: { httpUrl: "http://127.0.0.1:9/", headers: { X: "a\r\nInjected: 1" } } }, "invalid_mcp_server_config"],
      ["keep", { scope: "user", config: "not an object" }, "invalid_mcp_server_config"],
      ["keep", { scope: "workspace", config: stdioServer() }, "invalid_scope"],
      ["keep", [stdioServer()], "invalid_request"],
      ["bad.name", { scope: "user", config: stdioServer() }, "invalid_server_name"],
      ["x".repeat(33), { scope: "user", config: stdioServer() }, "invalid_server_name"],
    ];
    for (const [name, body, code] of cases) {
      const reply = await call(d, "PUT", `/workspace/config/mcp/servers/${name}`, body);
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code });
    }
    expect((await call(d, "DELETE", "/workspace/config/mcp/servers/keep")).body.code).toBe("invalid_scope");
    expect(readFileSync(f.hostFile, "utf8")).toBe(before);
    // No token, no change.
    const anonymous = await call(d, "PUT", "/workspace/config/mcp/servers/other", { scope: "user", config: stdioServer() }, {});
    expect(anonymous.status).toBe(401);
    expect(readFileSync(f.hostFile, "utf8")).toBe(before);
  });

  test("under an enforce budget, a server past it is refused with 409 mcp_budget_would_exceed", async () => {
    await using f = fixture();
    await using d = await f.start(["--mcp-client-budget", "1"]);
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/one", { scope: "user", config: stdioServer() })).status).toBe(200);
    const refused = await call(d, "PUT", "/workspace/config/mcp/servers/two", { scope: "user", config: stdioServer() });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "mcp_budget_would_exceed", budget: 1 });
    // Replacing the one declared is not an addition.
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/one", { scope: "user", config: stdioServer({ description: "again" }) })).status).toBe(200);
  });

  for (const trusted of [false, true])
    test(`a workspace's own MCP servers ${trusted ? "start in a trusted workspace" : "do not start in an untrusted workspace, and its settings cannot be changed through the API"}`, async () => {
      const ws = tempDir("m-mcp-pids-");
      const pidFile = join(ws.path, "pids");
      await using f = fixture({ mcpServers: { local: stdioServer({ env: { MCP_TEST_PID_FILE: pidFile } }) } });
      await using d = await f.start(trusted ? ["--trust-workspace"] : []);
      const s = await openSession(d);
      f.model.enqueue({ kind: "text", text: "ok" });
      expect((await turn(d, s, "hello")).event).toBe("turn_complete");
      const servers = (await call(d, "GET", "/workspace/mcp")).body.servers as Array<{ name: string }>;
      expect(servers.map((c) => c.name)).toEqual(trusted ? ["local"] : []);
      expect(existsSync(pidFile)).toBe(trusted);
      const qualified = `/workspaces/${encodeURIComponent(d.workspace)}/config/mcp/servers/added`;
      const put = await call(d, "PUT", qualified, { scope: "workspace", config: stdioServer() });
      expect(put.status).toBe(trusted ? 200 : 403);
      const local = JSON.parse(readFileSync(join(f.ws.path, ".svc", "settings.json"), "utf8"));
      expect(Object.keys(local.mcpServers)).toEqual(trusted ? ["local", "added"] : ["local"]);
      s.events.close();
      await ws[Symbol.asyncDispose]();
    });

  test("granting trust starts the workspace's servers for the next turn; revoking it stops them", async () => {
    const ws = tempDir("m-mcp-pids-");
    const pidFile = join(ws.path, "pids");
    await using f = fixture({ mcpServers: { local: stdioServer({ env: { MCP_TEST_PID_FILE: pidFile } }) } });
    await using d = await f.start();
    const s = await openSession(d);
    const names = async () => ((await call(d, "GET", "/workspace/mcp")).body.servers as Array<{ name: string; mcpStatus: string }>).map((c) => `${c.name}:${c.mcpStatus}`);
    f.model.enqueue({ kind: "text", text: "untrusted" });
    await turn(d, s, "one");
    expect(await names()).toEqual([]);
    expect((await call(d, "POST", "/workspace/trust/request", { desiredState: "trusted" })).status).toBe(202);
    f.model.enqueue({ kind: "text", text: "trusted" });
    await turn(d, s, "two");
    expect(await names()).toEqual(["local:connected"]);
    expect(existsSync(pidFile)).toBe(true);
    expect((await call(d, "POST", "/workspace/trust/request", { desiredState: "untrusted" })).status).toBe(202);
    f.model.enqueue({ kind: "text", text: "revoked" });
    await turn(d, s, "three");
    expect(await names()).toEqual([]);
    expect(offeredTools(f.model)).not.toContain("mcp__local__echo");
    s.events.close();
    await ws[Symbol.asyncDispose]();
  });
});
