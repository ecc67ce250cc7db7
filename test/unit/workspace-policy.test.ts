/** What a workspace's .svc/settings.json may change in the built-in agent under each trust decision, and what it asked for that is ignored. */
import { describe, expect, test } from "bun:test";
import type { ApprovalMode } from "../../src/config/approval-modes.ts";
import { ignoredSettingsLine, workspacePolicy } from "../../src/config/workspace-policy.ts";

const files = { hostFile: "/home/.svc/settings.json", workspaceFile: "/ws/.svc/settings.json" };
const policy = (host: Record<string, unknown>, local: Record<string, unknown>, trusted: boolean, approvalModeFlag: ApprovalMode | null = null) => workspacePolicy({ host, local, ...files, trusted, approvalModeFlag }, []);
const mode = (hostMode: ApprovalMode | undefined, localMode: ApprovalMode | undefined, trusted: boolean, flag: ApprovalMode | null = null) =>
  policy(hostMode ? { tools: { approvalMode: hostMode } } : {}, localMode ? { tools: { approvalMode: localMode } } : {}, trusted, flag);

describe("approval mode", () => {
  test("untrusted: plan or default only, the workspace may narrow and nothing else", () => {
    expect(mode(undefined, undefined, false).approvalMode).toBe("default");
    expect(mode("yolo", undefined, false).approvalMode).toBe("default");
    expect(mode("plan", undefined, false).approvalMode).toBe("plan");
    expect(mode("auto", "plan", false).approvalMode).toBe("plan");
    for (const asked of ["auto-edit", "auto"] as const) expect(mode(undefined, asked, false)).toMatchObject({ approvalMode: "default", ignored: [{ key: "tools.approvalMode", reason: "untrusted_workspace" }] });
    expect(mode("plan", "default", false)).toMatchObject({ approvalMode: "plan", ignored: [{ reason: "untrusted_workspace" }] });
    expect(mode("yolo", undefined, false, "yolo").approvalMode).toBe("default");
  });

  test("yolo never comes from a workspace file, trusted or not; from the host settings or the flag it does", () => {
    for (const trusted of [true, false]) expect(mode(undefined, "yolo", trusted)).toMatchObject({ ignored: [{ key: "tools.approvalMode", reason: "yolo_host_only" }] });
    expect(mode(undefined, "yolo", true).approvalMode).toBe("auto");
    expect(mode("yolo", undefined, true).approvalMode).toBe("yolo");
    expect(mode(undefined, undefined, true, "yolo").approvalMode).toBe("yolo");
  });

  test("trusted: the workspace's mode applies; with --approval-mode only a narrower one does", () => {
    expect(mode("plan", "auto-edit", true)).toMatchObject({ approvalMode: "auto-edit", ignored: [] });
    expect(mode(undefined, "auto-edit", true, "default")).toMatchObject({ approvalMode: "default", ignored: [{ reason: "approval_mode_flag" }] });
    expect(mode(undefined, "plan", true, "auto")).toMatchObject({ approvalMode: "plan", ignored: [] });
  });
});

describe("disabled tools and host-only keys", () => {
  test("untrusted: the workspace's list only adds; re-enabling a host-disabled tool is named", () => {
    const p = policy({ tools: { disabled: ["shell", "grep"] } }, { tools: { disabled: ["web"] } }, false);
    expect(p.disabledTools).toEqual(["grep", "shell", "web"]);
    expect(p.ignored).toEqual([{ key: "tools.disabled", reason: "untrusted_workspace", message: expect.stringContaining('"shell", "grep"') }]);
    expect(policy({ tools: { disabled: ["shell"] } }, { tools: { disabled: ["shell", "x"] } }, false).ignored).toEqual([]);
  });

  test("trusted: the workspace's list replaces the host's", () => {
    expect(policy({ tools: { disabled: ["shell"] } }, { tools: { disabled: [] } }, true)).toMatchObject({ disabledTools: [], ignored: [] });
  });

  test("providers and the daemon's keys are ignored from a workspace file, trusted or not; MCP servers and hooks while untrusted", () => {
    const local = { mcpServers: { x: { command: "/bin/sh" } }, hooks: {}, model: { providers: [], name: "m" }, security: { folderTrust: { enabled: false } }, agents: {}, agent: "gemini" };
    for (const trusted of [true, false])
      expect(policy({}, local, trusted).ignored.map((i) => [i.key, i.reason])).toEqual([
        ["model.providers", "host_only"],
        ["security", "host_only"],
        ["agents", "host_only"],
        ["agent", "host_only"],
        ...(trusted ? [] : [["mcpServers", "untrusted_workspace"], ["hooks", "untrusted_workspace"]]),
      ]);
  });

  test("everything ignored is one line; nothing ignored is no line", () => {
    const p = policy({}, { tools: { approvalMode: "yolo" }, mcpServers: {} }, false);
    const line = ignoredSettingsLine("/ws", p.ignored)!;
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toContain("/ws/.svc/settings.json");
    expect(line).toContain('"yolo"');
    expect(line).toContain("mcpServers");
    expect(ignoredSettingsLine("/ws", [])).toBeNull();
  });

  test("tool names in a message are bounded", () => {
    const host = { tools: { disabled: Array.from({ length: 100 }, (_, i) => `${"t".repeat(500)}${i}`) } };
    const [ignored] = policy(host, { tools: { disabled: [] } }, false).ignored;
    expect(ignored!.message.length).toBeLessThan(1000);
    expect(ignored!.message).toContain("and 92 more");
  });
});
