/**
 * `GET /capabilities` (spec "Capabilities document" and Versioning): the fields, `features` built
 * from mounted routes plus conditional tags that follow their toggles, and nothing private.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { featureTags } from "../../src/server/capability.ts";
import { configFixture } from "../helpers/config.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

/**
 * Every tag the spec names (Versioning §4 and §5), the reference daemon's `workspace_trust` and
 * `session_source_metadata`, which the spec's list lacks, and svc's `workspace_git` for the git
 * views, which the reference serves under no tag (docs/compat.md).
 */
const SPEC_TAGS = new Set(
  `health capabilities session_create session_scope_override session_load session_resume unstable_session_resume session_list
  session_prompt session_cancel session_events slow_client_warning typed_event_schema session_set_model client_identity
  client_heartbeat session_permission_vote permission_vote workspace_mcp workspace_skills workspace_providers auth_provider_install
  workspace_memory workspace_agents workspace_agent_generate workspace_env workspace_preflight session_context session_context_usage
  session_supported_commands session_tasks session_stats session_lsp session_close session_metadata mcp_guardrails workspace_mcp_manage
  mcp_guardrail_events mcp_server_runtime_mutation workspace_file_read workspace_file_bytes workspace_file_write
  session_approval_mode_control workspace_tool_toggle workspace_init workspace_mcp_restart session_recap session_btw mcp_pool_restart
  auth_device_flow permission_mediation non_blocking_prompt session_language session_rewind workspace_hooks session_hooks
  workspace_extensions session_branch daemon_status session_status session_transcript session_export session_startup_config
  session_resources session_worktree_reset_v1 session_info session_catalog_batch session_organization session_archive
  session_generation workspace_runtime_stop workspace_qualified_rest_core web_shell_brand daemon_update
  dynamic_workspace_registration persistent_workspace_registration workspace_display_name workspace_runtime_removal
  workspace_persisted_transcript workspace_session_export workspace_archived_session_export workspace_session_live_state
  workspace_skill_settings_toggle workspace_skill_settings_batch_toggle user_language_sync
  require_auth mcp_workspace_pool allow_origin prompt_absolute_deadline writer_idle_timeout workspace_settings
  session_shell_command rate_limit workspace_reload workspace_trust session_source_metadata workspace_git`.split(/\s+/),
);

/**
 * Exactly what this build advertises with no toggle on: the tags of its mounted routes. A tag added
 * without its route (or a route mounted without its tag) changes this list, so it must be updated
 * together with the route table.
 */
const BUILD_TAGS = `auth_device_flow auth_provider_install capabilities client_heartbeat client_identity daemon_status daemon_update health non_blocking_prompt permission_mediation
  permission_vote session_archive session_cancel session_catalog_batch session_close session_context
  session_context_usage session_create session_events session_export session_hooks session_info session_list session_load session_lsp
  session_metadata session_permission_vote session_prompt session_resources session_resume session_scope_override
  session_set_model session_startup_config session_stats session_status session_supported_commands session_tasks
  session_transcript slow_client_warning typed_event_schema unstable_session_resume workspace_env workspace_file_bytes
  workspace_file_read workspace_file_write workspace_hooks workspace_mcp workspace_mcp_manage workspace_persisted_transcript workspace_preflight
  workspace_providers workspace_session_export workspace_session_live_state workspace_skills
  mcp_guardrail_events session_approval_mode_control workspace_init workspace_mcp_restart workspace_skill_settings_batch_toggle
  workspace_skill_settings_toggle workspace_tool_toggle workspace_trust session_source_metadata web_shell_brand
  workspace_settings workspace_git workspace_archived_session_export workspace_qualified_rest_core
  dynamic_workspace_registration persistent_workspace_registration workspace_display_name
  workspace_runtime_removal workspace_runtime_stop session_organization session_recap session_btw session_generation workspace_memory session_language user_language_sync session_rewind session_branch workspace_extensions
  session_worktree_reset_v1 workspace_agents workspace_agent_generate mcp_server_runtime_mutation`.split(/\s+/).sort();
/** On while the shared MCP pool is (the default; `SVC_SERVE_NO_MCP_POOL=1` turns it off). */
const POOL_TAGS = ["mcp_pool_restart", "mcp_workspace_pool"];
const DEFAULT_TAGS = [...BUILD_TAGS, ...POOL_TAGS].sort();

const TOKEN = "caps-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

interface Capabilities {
  v: number;
  protocolVersions: { current: string; supported: string[] };
  mode: string;
  features: string[];
  modelServices: unknown[];
  workspaceCwd: string;
  policy: { permission: string };
}

async function capabilities(args: string[] = [], env: Record<string, string> = {}): Promise<{ doc: Capabilities; text: string; workspace: string }> {
  await using d = await startDaemon(args, { env });
  const res = await d.fetch("/capabilities", { headers: AUTH });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  const text = await res.text();
  return { doc: JSON.parse(text) as Capabilities, text, workspace: d.workspace };
}

describe("the document", () => {
  test("carries the spec's fields", async () => {
    const { doc, workspace } = await capabilities();
    expect(doc.v).toBe(1);
    expect(doc.protocolVersions).toEqual({ current: "v1", supported: ["v1"] });
    expect(doc.mode).toBe("http-bridge");
    expect(doc.modelServices).toEqual([]);
    expect(doc.workspaceCwd).toBe(workspace);
    expect(doc.policy.permission).toBe("first-responder");
    expect(Array.isArray(doc.features)).toBe(true);
  });

  test("workspaceCwd is the canonical path, even when the workspace was given through a symlink", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "real"));
    symlinkSync(join(dir.path, "real"), join(dir.path, "link"));
    const { doc } = await capabilities(["--workspace", join(dir.path, "link", ".")]);
    expect(doc.workspaceCwd).toBe(join(dir.path, "real"));
  });

  test("policy.permission follows settings.json", async () => {
    await using home = tempDir();
    writeFileSync(join(home.path, "settings.json"), JSON.stringify({ policy: { permissionStrategy: "consensus" } }));
    const { doc } = await capabilities([], { SVC_HOME: home.path });
    expect(doc.policy.permission).toBe("consensus");
  });

  test("features: the mounted routes' tags, sorted, unique, all named by the spec", async () => {
    const { doc } = await capabilities();
    for (const tag of ["health", "capabilities", "daemon_status"]) expect(doc.features).toContain(tag);
    expect(doc.features).toEqual([...new Set(doc.features)].sort());
    expect(doc.features.filter((t) => !SPEC_TAGS.has(t))).toEqual([]);
  });

  test("features: exactly this build's route tags, and the pool's", async () => {
    const { doc } = await capabilities();
    expect(doc.features).toEqual(DEFAULT_TAGS);
  });

  test("no conditional tag is on by default", async () => {
    const { doc } = await capabilities();
    for (const tag of ["require_auth", "allow_origin", "rate_limit", "prompt_absolute_deadline", "writer_idle_timeout", "session_shell_command"])
      expect(doc.features).not.toContain(tag);
  });

  test("nothing private: no token, no pattern list", async () => {
    const { text } = await capabilities(["--token", TOKEN, "--allow-origin", "https://private-ui.example:9443"]);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("private-ui");
  });
});

describe("conditional tags follow their toggles", () => {
  test.each<[string, string[], Record<string, string>]>([
    ["require_auth", ["--token", TOKEN, "--require-auth"], {}],
    ["allow_origin", ["--token", TOKEN, "--allow-origin", "https://ui.example"], {}],
    ["allow_origin", ["--token", TOKEN, "--allow-origin", "*"], {}],
    ["rate_limit", ["--rate-limit"], {}],
    ["rate_limit", [], { SVC_SERVE_RATE_LIMIT: "1" }],
  ])("%s with %j %j", async (tag, args, env) => {
    const { doc } = await capabilities(args, env);
    expect(doc.features.filter((t) => t === tag)).toEqual([tag]);
  });

  test("prompt_absolute_deadline and writer_idle_timeout appear only with a positive value and their route", async () => {
    const on = (await capabilities(["--prompt-deadline-ms", "1000", "--writer-idle-timeout-ms", "1000"])).doc.features;
    expect(on.includes("prompt_absolute_deadline")).toBe(on.includes("session_prompt"));
    expect(on.includes("writer_idle_timeout")).toBe(on.includes("session_events"));
    const off = (await capabilities(["--prompt-deadline-ms", "0", "--writer-idle-timeout-ms", "0"])).doc.features;
    expect(off).not.toContain("prompt_absolute_deadline");
    expect(off).not.toContain("writer_idle_timeout");
  });

  test("featureTags: each timing tag needs both its toggle (flag or env) and its route tag", async () => {
    await using fx = configFixture();
    const routes = new Set(["health", "session_prompt", "session_events"]);
    const timing = (tags: string[]) => tags.filter((t) => t === "prompt_absolute_deadline" || t === "writer_idle_timeout");
    const flags = fx.resolve(["--prompt-deadline-ms", "1000", "--writer-idle-timeout-ms", "1000"]);
    expect(timing(featureTags(routes, flags))).toEqual(["prompt_absolute_deadline", "writer_idle_timeout"]);
    const env = fx.resolve([], { SVC_SERVE_PROMPT_DEADLINE_MS: "500", SVC_SERVE_WRITER_IDLE_TIMEOUT_MS: "500" });
    expect(timing(featureTags(routes, env))).toEqual(["prompt_absolute_deadline", "writer_idle_timeout"]);
    expect(timing(featureTags(routes, fx.resolve(["--prompt-deadline-ms", "0"])))).toEqual([]);
    expect(timing(featureTags(new Set(["health"]), flags))).toEqual([]);
  });

  test("every toggle on adds exactly its own tag", async () => {
    const { doc } = await capabilities(["--token", TOKEN, "--require-auth", "--allow-origin", "https://ui.example", "--rate-limit", "--prompt-deadline-ms", "1000", "--writer-idle-timeout-ms", "1000"]);
    expect(doc.features).toEqual([...DEFAULT_TAGS, "allow_origin", "prompt_absolute_deadline", "rate_limit", "require_auth", "writer_idle_timeout"].sort());
  });

  // The pool tags follow the switch (the built-in agent's MCP servers serve all of its sessions);
  // the switch itself shows in the status.
  test.each<[Record<string, string>, boolean]>([
    [{}, true],
    [{ SVC_SERVE_NO_MCP_POOL: "0" }, true],
    [{ SVC_SERVE_NO_MCP_POOL: "1" }, false],
  ])("MCP pool tags with %j", async (env, pool) => {
    const { doc } = await capabilities([], env);
    expect(doc.features).toEqual(pool ? DEFAULT_TAGS : BUILD_TAGS);
    await using d = await startDaemon([], { env });
    expect(((await (await d.fetch("/daemon/status")).json()) as { limits: { mcpPool: boolean } }).limits.mcpPool).toBe(pool);
  });
});
