/**
 * The mutation control routes on an idle daemon (no agent child, and none started by them): the
 * strict gate, request checks with the reference's codes, the settings-file tool toggle (the
 * built-in agent's `.svc/settings.json` while idle), `/workspace/init`, and clear refusals for what
 * needs a live agent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "controls-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/** Every control route, with a body it would act on. */
const ROUTES: [string, unknown][] = [
  ["/session/s1/approval-mode", { mode: "plan" }],
  ["/workspace/tools/read_file/enable", { enabled: false }],
  ["/workspace/skills/fake-skill/enable", { enabled: false }],
  ["/workspace/skills/enable", { skillNames: ["fake-skill"], enabled: false }],
  ["/workspace/init", {}],
  ["/workspace/mcp/reload", {}],
  ["/workspace/mcp/db/restart", {}],
];

describe("without a configured token", () => {
  test("every control route answers 401 token_required and changes nothing", async () => {
    await using d = await fakeAgentDaemon();
    for (const [path, body] of ROUTES) {
      const reply = await d.json("POST", path, body);
      expect([path, reply.status, reply.body.code]).toEqual([path, 401, "token_required"]);
    }
    expect(existsSync(join(d.workspace, ".svc"))).toBe(false);
    expect(existsSync(join(d.workspace, "AGENTS.md"))).toBe(false);
    expect(await d.agentPids()).toEqual([]);
  });
});

describe("idle daemon with a token", () => {
  let d: FakeAgentDaemon;
  const post = (path: string, body?: unknown) => d.json("POST", path, body, AUTH);
  const settingsFile = () => join(d.workspace, ".svc", "settings.json");
  const settings = () => JSON.parse(readFileSync(settingsFile(), "utf8"));
  beforeAll(async () => {
    d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
  });
  afterAll(async () => {
    // Nothing here needed an agent, and nothing started one.
    expect(await d.agentPids()).toEqual([]);
    await d[Symbol.asyncDispose]();
  });

  test("the routes are in features and marked strict", async () => {
    const features = (await d.json("GET", "/capabilities", undefined, AUTH)).body.features;
    for (const tag of ["session_approval_mode_control", "workspace_tool_toggle", "workspace_init", "workspace_mcp_restart", "workspace_skill_settings_toggle", "workspace_skill_settings_batch_toggle"])
      expect(features).toContain(tag);
  });

  test("approval-mode: unknown session 404; bad mode, persist or planMode 400 with the reference's codes", async () => {
    expect(await post("/session/nope/approval-mode", { mode: "plan" })).toMatchObject({ status: 404, body: { code: "session_not_found", sessionId: "nope" } });
    const bad = await post("/session/nope/approval-mode", { mode: "reckless" });
    expect(bad).toMatchObject({ status: 400, body: { code: "invalid_approval_mode", allowed: ["plan", "default", "auto-edit", "auto", "yolo"] } });
    expect(await post("/session/nope/approval-mode", {})).toMatchObject({ status: 400, body: { code: "invalid_approval_mode" } });
    expect(await post("/session/nope/approval-mode", { mode: "plan", persist: "yes" })).toMatchObject({ status: 400, body: { code: "invalid_persist_flag" } });
    expect(await post("/session/nope/approval-mode", { mode: "plan", planMode: true })).toMatchObject({ status: 400, body: { code: "invalid_plan_mode" } });
    expect(await post("/session/nope/approval-mode", [1])).toMatchObject({ status: 400, body: { code: "invalid_request" } });
  });

  test("tool toggle while idle rewrites tools.disabled (sorted) in .svc/settings.json, keeping every other key", async () => {
    mkdirSync(join(d.workspace, ".svc"), { recursive: true });
    writeFileSync(settingsFile(), JSON.stringify({ tools: { approvalMode: "default", disabled: ["zeta"] }, policy: { permissionStrategy: "first-responder" } }));
    expect(await post("/workspace/tools/read_file/enable", { enabled: false })).toMatchObject({ status: 200, body: { toolName: "read_file", enabled: false } });
    expect(await post("/workspace/tools/%20alpha%20/enable", { enabled: false })).toMatchObject({ status: 200, body: { toolName: "alpha", enabled: false } });
    expect(settings()).toEqual({ tools: { approvalMode: "default", disabled: ["alpha", "read_file", "zeta"] }, policy: { permissionStrategy: "first-responder" } });
    expect(await post("/workspace/tools/zeta/enable", { enabled: true })).toMatchObject({ status: 200, body: { toolName: "zeta", enabled: true } });
    expect(await post("/workspace/tools/zeta/enable", { enabled: true })).toMatchObject({ status: 200 });
    expect(settings().tools.disabled).toEqual(["alpha", "read_file"]);
  });

  test("concurrent toggles all land", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(2, "0")}`);
    const replies = await Promise.all(names.map((name) => post(`/workspace/tools/${name}/enable`, { enabled: false })));
    expect(replies.map((r) => r.status)).toEqual(names.map(() => 200));
    expect(settings().tools.disabled).toEqual(expect.arrayContaining(names));
  });

  test("tool toggle: a bad flag or name is 400 and writes nothing", async () => {
    const before = readFileSync(settingsFile(), "utf8");
    expect(await post("/workspace/tools/read_file/enable", {})).toMatchObject({ status: 400, body: { code: "invalid_enabled_flag" } });
    expect(await post("/workspace/tools/read_file/enable", { enabled: "false" })).toMatchObject({ status: 400, body: { code: "invalid_enabled_flag" } });
    expect(await post("/workspace/tools/%20%20/enable", { enabled: false })).toMatchObject({ status: 400, body: { code: "invalid_tool_name" } });
    expect(await post(`/workspace/tools/${"x".repeat(257)}/enable`, { enabled: false })).toMatchObject({ status: 400, body: { code: "invalid_tool_name" } });
    expect(readFileSync(settingsFile(), "utf8")).toBe(before);
  });

  test("a tool, skill or server name with a control or invisible format character is 400 and writes nothing", async () => {
    const before = readFileSync(settingsFile(), "utf8");
    for (const bad of ["a%00b", "a%0Ab", "a%1Bb", "a%7Fb", "a%C2%85b", "a%E2%80%AEb", "a%E2%80%8Bb", "%EF%BB%BFa"])
      expect([bad, await post(`/workspace/tools/${bad}/enable`, { enabled: false })]).toMatchObject([bad, { status: 400, body: { code: "invalid_tool_name" } }]);
    expect(await post("/workspace/skills/a%00b/enable", { enabled: false })).toMatchObject({ status: 400, body: { code: "invalid_skill_name" } });
    expect(await post("/workspace/mcp/a%E2%80%AEb/restart")).toMatchObject({ status: 400, body: { code: "invalid_server_name" } });
    expect(readFileSync(settingsFile(), "utf8")).toBe(before);
    // Names in other scripts, with inner spaces, punctuation, are fine.
    expect(await post("/workspace/tools/%E5%B7%A5%E5%85%B7%20x.y-z/enable", { enabled: true })).toMatchObject({ status: 200, body: { toolName: "工具 x.y-z" } });
  });

  test("a tools.disabled that is not a list of names is refused (409) and the file is left as it was", async () => {
    for (const disabled of ["x", { a: 1 }, ["ok", 3], ["ok", null], 7]) {
      const text = JSON.stringify({ tools: { disabled } });
      writeFileSync(settingsFile(), text);
      const reply = await post("/workspace/tools/y/enable", { enabled: false });
      expect([disabled, reply]).toMatchObject([disabled, { status: 409, body: { code: "invalid_workspace_settings", path: ".svc/settings.json" } }]);
      expect(reply.body.error).toContain("tools.disabled");
      expect(readFileSync(settingsFile(), "utf8")).toBe(text);
    }
    writeFileSync(settingsFile(), "{}");
  });

  test("a settings file symlinked to a file inside the workspace is refused as a link, not as an escape; the target is untouched", async () => {
    await using ws = tempDir("svc-ws-");
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, "real.json"), "{}");
    symlinkSync(join(ws.path, "real.json"), join(ws.path, ".svc", "settings.json"));
    await using other = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: ws.path });
    const reply = await other.json("POST", "/workspace/tools/read_file/enable", { enabled: false }, AUTH);
    expect(reply).toMatchObject({ status: 400, body: { code: "workspace_settings_unwritable", errorKind: "symlink_not_followed", path: ".svc/settings.json" } });
    expect(reply.body.error).toContain("symbolic link");
    expect(reply.body.error).not.toContain("outside");
    expect(readFileSync(join(ws.path, "real.json"), "utf8")).toBe("{}");
  });

  test("a settings file that is not a JSON object, or whose tools is not one, is refused and left as it was", async () => {
    for (const text of ["{ // a comment\n}", "[1, 2]", "not json", JSON.stringify({ tools: ["read_file"] })]) {
      writeFileSync(settingsFile(), text);
      const reply = await post("/workspace/tools/read_file/enable", { enabled: false });
      expect(reply).toMatchObject({ status: 409, body: { code: "invalid_workspace_settings", path: ".svc/settings.json" } });
      expect(readFileSync(settingsFile(), "utf8")).toBe(text);
    }
    writeFileSync(settingsFile(), "{}");
  });

  test("a settings directory that is a symlink out of the workspace is refused; nothing is written outside", async () => {
    await using outside = tempDir("svc-outside-");
    await using ws = tempDir("svc-ws-");
    symlinkSync(outside.path, join(ws.path, ".svc"));
    await using other = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: ws.path });
    const reply = await other.json("POST", "/workspace/tools/read_file/enable", { enabled: false }, AUTH);
    expect(reply).toMatchObject({ status: 400, body: { code: "workspace_settings_unwritable", errorKind: "symlink_escape" } });
    expect(existsSync(join(outside.path, "settings.json"))).toBe(false);
  });

  test("init creates an empty AGENTS.md, leaves a blank one, refuses one with content unless forced", async () => {
    const file = join(d.workspace, "AGENTS.md");
    expect(await post("/workspace/init", {})).toMatchObject({ status: 200, body: { path: file, action: "created" } });
    expect(readFileSync(file, "utf8")).toBe("");
    expect(await post("/workspace/init")).toMatchObject({ status: 200, body: { action: "noop" } });
    writeFileSync(file, "# Rules\n");
    expect(await post("/workspace/init", {})).toMatchObject({ status: 409, body: { code: "workspace_init_conflict", path: file, existingSize: 8 } });
    expect(readFileSync(file, "utf8")).toBe("# Rules\n");
    expect(await post("/workspace/init", { force: "yes" })).toMatchObject({ status: 400, body: { code: "invalid_force_flag" } });
    expect(await post("/workspace/init", { force: true })).toMatchObject({ status: 200, body: { path: file, action: "overwrote" } });
    expect(statSync(file).size).toBe(0);
  });

  test("init never follows a symlink at the context file's name", async () => {
    await using outside = tempDir("svc-outside-");
    await using ws = tempDir("svc-ws-");
    writeFileSync(join(outside.path, "target.md"), "keep me");
    symlinkSync(join(outside.path, "target.md"), join(ws.path, "AGENTS.md"));
    await using other = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: ws.path });
    const reply = await other.json("POST", "/workspace/init", { force: true }, AUTH);
    expect(reply).toMatchObject({ status: 400, body: { code: "workspace_init_refused" } });
    expect(readFileSync(join(outside.path, "target.md"), "utf8")).toBe("keep me");
  });

  test("MCP reload/restart and skill toggles need a running agent: 409 agent_not_running, no child started", async () => {
    for (const [path, body] of ROUTES.slice(2)) {
      if (path === "/workspace/init") continue;
      expect([path, await post(path, body)]).toMatchObject([path, { status: 409, body: { code: "agent_not_running" } }]);
    }
  });

  test("reload and restart check their inputs first", async () => {
    expect(await post("/workspace/mcp/reload", { forceReconnectAll: true, forceReconnectWhich: ["db"] })).toMatchObject({ status: 400, body: { code: "conflicting_force_reconnect_options" } });
    expect(await post("/workspace/mcp/reload", { forceReconnectAll: 1 })).toMatchObject({ status: 400, body: { code: "invalid_force_reconnect_all_flag" } });
    expect(await post("/workspace/mcp/reload", { forceReconnectWhich: [""] })).toMatchObject({ status: 400, body: { code: "invalid_force_reconnect_which" } });
    for (const index of ["-1", "1.5", "01", "x"])
      expect(await post(`/workspace/mcp/db/restart?entryIndex=${index}`)).toMatchObject({ status: 400, body: { code: "invalid_entry_index" } });
    expect(await post("/workspace/skills/enable", { skillNames: [], enabled: true })).toMatchObject({ status: 400, body: { code: "invalid_skill_names" } });
  });
});

describe("folder trust", () => {
  test("a workspace nobody trusted refuses every workspace control with 403 untrusted_workspace and writes nothing", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN]);
    for (const [path, body] of ROUTES.slice(1))
      expect([path, await d.json("POST", path, body, AUTH)]).toMatchObject([path, { status: 403, body: { code: "untrusted_workspace" } }]);
    expect(existsSync(join(d.workspace, ".svc"))).toBe(false);
    expect(existsSync(join(d.workspace, "AGENTS.md"))).toBe(false);
    expect(await d.agentPids()).toEqual([]);
  });
});
