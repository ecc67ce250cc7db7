/**
 * Hostile review R17 of MCP server management: one regression test per defect it found, each seen
 * red before its fix. `__proto__` as a server name; a settings file grown past what every reader
 * (the boot among them) takes; two writers of one settings file losing each other's changes; trust
 * revoked before the first prompt; a host change not reaching an untrusted workspace's agent; URL
 * credentials answered; the redaction marker carrying a secret to a new URL; a server flooding
 * stdout wedging the agent; disabling an extension's server doing nothing; an idle Qwen Code
 * workspace's servers written where Qwen Code does not read them; a storm of writes reconnecting
 * once per write.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { mcpFixture, mcpServerStates, mcpTurn, MCP_TEST_SERVER, openMcpSession, stdioServer, type McpSession } from "../helpers/mcp-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "r17-mcp-token-0123456789";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/** A workspace whose `.svc/settings.json` is `local` (none when null), a data dir of its own, and the mock model. */
const fixture = (local: Record<string, unknown> | null = null) => mcpFixture({ token: TOKEN, prefix: "r17", local });
const call = (d: TestDaemon, method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);
const openSession = (d: TestDaemon) => openMcpSession(d, AUTH);
const turn = (d: TestDaemon, s: McpSession, text: string) => mcpTurn(d, s, text, AUTH);
const serverNames = (d: TestDaemon) => mcpServerStates(d, AUTH);

describe("MCP management (review R17)", () => {
  test("D1: a PUT of server `__proto__` is either refused or stored (not 200 with nothing written)", async () => {
    await using f = fixture();
    await using d = await f.start();
    const put = await call(d, "PUT", "/workspace/config/mcp/servers/__proto__", { scope: "user", config: { command: "/bin/true" } });
    const stored = Object.hasOwn((JSON.parse(readFileSync(f.hostFile, "utf8")).mcpServers ?? {}) as object, "__proto__");
    expect(put.status === 400 || stored).toBe(true);
  });

  test("D2: accepted PUTs never grow the host settings past the 1 MiB every reader (and boot) refuses", async () => {
    await using f = fixture();
    await using d = await f.start();
    const env = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`V${i}`, "x".repeat(8192)]));
    for (const name of ["big1", "big2"]) {
      const put = await call(d, "PUT", `/workspace/config/mcp/servers/${name}`, { scope: "user", config: { command: "/bin/true", env } });
      if (put.status !== 200) break;
    }
    expect(statSync(f.hostFile).size).toBeLessThanOrEqual(1 << 20);
  });

  test("D3: concurrent tool toggles and workspace MCP PUTs on the same settings file all land", async () => {
    await using f = fixture();
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "hi" });
    await turn(d, s, "start the agent");
    const ws = encodeURIComponent(f.ws.path);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => [
        call(d, "POST", `/workspace/tools/tool${i}/enable`, { enabled: false }),
        call(d, "PUT", `/workspaces/${ws}/config/mcp/servers/w${i}`, { scope: "workspace", config: { url: "http://127.0.0.1:9/x" } }),
      ]).flat(),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const doc = JSON.parse(readFileSync(join(f.ws.path, ".svc", "settings.json"), "utf8"));
    expect({ tools: doc.tools.disabled.length, servers: Object.keys(doc.mcpServers).length }).toEqual({ tools: 8, servers: 8 });
    s.events.close();
  });

  test("D4: trust revoked before the first prompt: the workspace's server never starts", async () => {
    await using f = fixture({ mcpServers: { local: stdioServer() } });
    await using d = await f.start();
    expect((await call(d, "POST", "/workspace/trust/request", { desiredState: "trusted" })).status).toBe(202);
    const s = await openSession(d); // the agent starts trusted; discovery waits for the first prompt
    expect((await call(d, "POST", "/workspace/trust/request", { desiredState: "untrusted" })).body.agent).toBe("applied");
    f.model.enqueue({ kind: "text", text: "untrusted now" });
    await turn(d, s, "first prompt");
    expect(await serverNames(d)).toEqual([]);
    s.events.close();
  });

  test("D5: a host server removed while the workspace is untrusted stops (or the answer does not claim it will)", async () => {
    await using f = fixture();
    await using d = await f.start();
    writeFileSync(f.hostFile, JSON.stringify({ ui: { autoTitle: false }, mcpServers: { host: stdioServer() } }));
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "hi" });
    await turn(d, s, "connect the host server");
    expect(await serverNames(d)).toEqual(["host:connected"]);
    const removed = await call(d, "DELETE", "/workspace/config/mcp/servers/host?scope=user");
    expect(removed.status).toBe(200);
    f.model.enqueue({ kind: "text", text: "after" });
    await turn(d, s, "after remove");
    expect(await serverNames(d)).toEqual([]);
    s.events.close();
  });

  test("D6: URL credentials and query tokens are not answered", async () => {
    await using f = fixture();
    await using d = await f.start();
    await call(d, "PUT", "/workspace/config/mcp/servers/remote", { scope: "user", config: { url: "https://alice:pw-SECRET-1@example.com/mcp?api_key=SECRET-2" } });
    const text = JSON.stringify((await call(d, "GET", "/workspace/config/mcp/servers")).body);
    expect(text).not.toContain("SECRET-1");
    expect(text).not.toContain("SECRET-2");
  });

  test("D7: the redaction marker does not carry a stored header to a new URL", async () => {
    await using f = fixture();
    await using d = await f.start();
    await call(d, "PUT", "/workspace/config/mcp/servers/remote", { scope: "user", config: { url: "https://good.example/mcp", headers: { Authorization: "Bearer HDR-SECRET" } } });
    const moved = await call(d, "PUT", "/workspace/config/mcp/servers/remote", { scope: "user", config: { url: "http://127.0.0.1:7/steal", headers: { Authorization: "__redacted__" } } });
    expect(moved.status === 400 || !readFileSync(f.hostFile, "utf8").includes("HDR-SECRET")).toBe(true);
  });
  test("D8: a server flooding stdout with non-JSON lines does not wedge the agent (discovery timeout holds)", async () => {
    await using f = fixture();
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "hi" });
    await turn(d, s, "start the agent");
    expect((await call(d, "PUT", "/workspace/config/mcp/servers/flood", { scope: "user", config: { command: "/usr/bin/yes" } })).body.activation).toBe("reconciling");
    // The flood is cut: the server ends failed, and the agent answers its status and its turns.
    const flood = await until(async () => {
      const snapshot = await call(d, "GET", "/workspace/mcp");
      const cell = (snapshot.body.servers as Array<{ name: string; status: string }> | undefined)?.find((c) => c.name === "flood");
      return (snapshot.body.errors ?? []).length === 0 && cell?.status === "error" ? cell : null;
    }, 30_000, "the flooding server to be stopped");
    expect(flood).toMatchObject({ name: "flood", status: "error" });
    f.model.enqueue({ kind: "text", text: "still here" });
    expect((await turn(d, s, "after the flood")).event).toBe("turn_complete");
    s.events.close();
  }, 60_000);

  test("D10: an idle Qwen Code workspace's servers are written to the .qwen settings it reads", async () => {
    await using f = fixture();
    await using d = await f.start(["--trust-workspace", "--agent", "qwen-code"]);
    const put = await call(d, "PUT", `/workspaces/${encodeURIComponent(f.ws.path)}/config/mcp/servers/q`, { scope: "workspace", config: stdioServer() });
    expect(put).toMatchObject({ status: 200, body: { activation: "deferred" } });
    expect(Object.keys(JSON.parse(readFileSync(join(f.ws.path, ".qwen", "settings.json"), "utf8")).mcpServers)).toEqual(["q"]);
    expect(existsSync(join(f.ws.path, ".svc", "settings.json"))).toBe(false);
  });

  test("D11: a storm of settings writes reconnects the servers a few times, not once per write", async () => {
    const pids = tempDir("r17-pids-");
    const pidFile = join(pids.path, "pids");
    await using f = fixture();
    writeFileSync(f.hostFile, JSON.stringify({ ui: { autoTitle: false }, mcpServers: { counted: stdioServer({ env: { MCP_TEST_PID_FILE: pidFile } }) } }));
    await using d = await f.start(["--trust-workspace"]);
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "hi" });
    await turn(d, s, "connect");
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => call(d, "PUT", `/workspace/config/mcp/servers/dead${i}`, { scope: "user", config: { url: `http://127.0.0.1:9/m${i}` } })));
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    f.model.enqueue({ kind: "text", text: "after" });
    await turn(d, s, "after the storm");
    expect(await serverNames(d)).toContain("counted:connected");
    // The first connect, then the reload running when the storm began and the one after it (a slow
    // machine may let the writes straddle one more): far fewer than one per write (13 before).
    expect(readFileSync(pidFile, "utf8").trim().split("\n").length).toBeLessThanOrEqual(6);
    s.events.close();
    await pids[Symbol.asyncDispose]();
  });

  test("D9: disabling an extension's server stops it (or is refused), not `changed: true` with it still connected", async () => {
    await using f = fixture();
    const ext = tempDir("r17-ext-");
    writeFileSync(join(ext.path, "qwen-extension.json"), JSON.stringify({ name: "ex", version: "1.0.0", mcpServers: { srv: { command: process.execPath, args: [MCP_TEST_SERVER] } } }));
    await using d = await f.start(["--trust-workspace"]);
    const started = await call(d, "POST", "/workspace/extensions/install", { source: ext.path, consent: true });
    expect(started.status).toBe(202);
    // The install is an operation: the agent started after it ends reads the extension.
    await until(async () => (await call(d, "GET", `/workspace/extensions/operations/${started.body.operationId}`)).body.status === "succeeded" || undefined, 10_000, "the install");
    const s = await openSession(d);
    f.model.enqueue({ kind: "text", text: "hi" });
    await turn(d, s, "connect");
    await until(async () => (await serverNames(d)).includes("ex__srv:connected"), 10_000, "the extension's server");
    const off = await call(d, "POST", "/workspace/config/mcp/ex__srv/disable");
    f.model.enqueue({ kind: "text", text: "after" });
    await turn(d, s, "after disable");
    expect(off.status !== 200 || !(await serverNames(d)).includes("ex__srv:connected")).toBe(true);
    s.events.close();
    await ext[Symbol.asyncDispose]();
  });
});
