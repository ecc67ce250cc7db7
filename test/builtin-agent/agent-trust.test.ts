/**
 * The built-in agent and folder trust: run on its own it decides from the trust store (untrusted
 * without a decision); the daemon's `--workspace-trust` is taken as is; `svc/control/workspace/trust`
 * narrows live sessions at once when trust is revoked and lets them widen again when it is granted.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { updateTrustStore } from "../../src/trust/index.ts";
import { MAIN_TS } from "../helpers/daemon.ts";
import { testTarget } from "../helpers/test-target.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { rpcError, startAgent } from "./agent-client.ts";

const home = process.env.SVC_HOME!;
afterEach(() => {
  rmSync(join(home, "trust.json"), { force: true });
  rmSync(join(home, "settings.json"), { force: true });
});

const SHELL = { name: "run_shell_command", args: { command: "touch t.txt" } };
type TrustAnswer = { trusted: boolean; approvalMode: string; narrowed: { sessionId: string; previous: string }[] };

describe("the built-in agent's trust", () => {
  test("run on its own it is untrusted until the trust store trusts the workspace; the daemon's argument is taken as is", async () => {
    await using ws = tempDir("svc-agent-ws-");
    {
      await using a = await startAgent({ workspace: ws.path });
      expect((await a.newSession()).modes?.currentModeId).toBe("default");
    }
    updateTrustStore(home, () => [{ path: ws.path, level: "TRUST_FOLDER", origin: "file" }]);
    {
      await using a = await startAgent({ workspace: ws.path });
      expect((await a.newSession()).modes?.currentModeId).toBe("auto");
    }
    {
      // The daemon's decision wins both ways (it passes untrusted after a revocation the store does not show).
      await using a = await startAgent({ workspace: ws.path, trusted: false, approvalMode: "auto-edit" });
      expect((await a.newSession()).modes?.currentModeId).toBe("default");
    }
    {
      await using a = await startAgent({ workspace: ws.path, trusted: true, approvalMode: "auto-edit" });
      expect((await a.newSession()).modes?.currentModeId).toBe("auto-edit");
    }
  });

  test("an unknown --workspace-trust value exits 2 naming it", async () => {
    await using ws = tempDir("svc-agent-ws-");
    const target = testTarget();
    const proc = Bun.spawn([...(target.kind === "binary" ? [target.path] : [process.execPath, MAIN_TS]), "--acp", "--workspace-trust", "maybe"], { cwd: ws.path, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain("--workspace-trust");
  });

  test("revoking switches sessions in a wider mode to default at once, keeps plan, refuses wider modes and asks again", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const wide = (await a.newSession()).sessionId;
    const planned = (await a.newSession()).sessionId;
    await a.agent.request("session/set_mode", { sessionId: planned, modeId: "plan" });
    const answer = await a.agent.request<TrustAnswer>("svc/control/workspace/trust", { cwd: a.workspace, trusted: false });
    expect(answer).toEqual({ trusted: false, approvalMode: "default", narrowed: [{ sessionId: wide, previous: "yolo" }] });
    await a.waitForUpdate(wide, (u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "default", "the narrowing");
    expect((await rpcError(a.agent.request("session/set_mode", { sessionId: wide, modeId: "yolo" }))).code).toBe(-32602);
    expect((await a.newSession()).modes?.currentModeId).toBe("default");
    a.onPermission = () => ({ outcome: "cancelled" });
    a.model.enqueue({ kind: "tools", calls: [SHELL] }, { kind: "text", text: "ok" });
    await a.turn(wide, "touch");
    expect(a.permissionRequests).toHaveLength(1);

    const granted = await a.agent.request<TrustAnswer>("svc/control/workspace/trust", { cwd: a.workspace, trusted: true });
    expect(granted).toEqual({ trusted: true, approvalMode: "yolo", narrowed: [] });
    expect(a.updatesOf(planned).filter((u) => u.sessionUpdate === "current_mode_update").map((u) => (u as { currentModeId: string }).currentModeId)).toEqual(["plan"]);
    await a.agent.request("session/set_mode", { sessionId: wide, modeId: "auto-edit" });
    expect((await a.newSession()).modes?.currentModeId).toBe("yolo");
  });

  test("revoking forgets the sessions' always answers: a write and a command allowed always under trust ask again", async () => {
    await using a = await startAgent({ trusted: true, approvalMode: "default" });
    const { sessionId } = await a.newSession();
    a.onPermission = () => ({ outcome: "selected", optionId: "proceed_always" });
    const write = (n: number) => ({ name: "write_file", args: { file_path: `w${n}.txt`, content: "x" } });
    a.model.enqueue({ kind: "tools", calls: [write(1), SHELL] }, { kind: "tools", calls: [write(2), SHELL] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "twice");
    expect(a.permissionRequests).toHaveLength(2);
    await a.agent.request("svc/control/workspace/trust", { cwd: a.workspace, trusted: false });
    a.onPermission = () => ({ outcome: "selected", optionId: "cancel" });
    a.model.enqueue({ kind: "tools", calls: [write(3), SHELL] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "again");
    expect(a.permissionRequests).toHaveLength(4);
  });

  test("revoking adds the untrusted policy's disabled tools at once; a trust message for another folder is refused", async () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ tools: { disabled: ["run_shell_command"] } }));
    await using a = await startAgent({ trusted: true, workspaceSettings: { tools: { disabled: [] } } });
    const enabled = async () =>
      ((await a.agent.request<{ tools: { name: string; enabled: boolean }[] }>("svc/status/workspace/tools", { cwd: a.workspace })).tools.find((t) => t.name === "run_shell_command")!).enabled;
    expect(await enabled()).toBe(true);
    await a.agent.request("svc/control/workspace/trust", { cwd: a.workspace, trusted: false });
    expect(await enabled()).toBe(false);
    expect((await rpcError(a.agent.request("svc/control/workspace/trust", { cwd: "/elsewhere", trusted: true }))).code).toBe(-32602);
    expect((await rpcError(a.agent.request("svc/control/workspace/trust", { cwd: a.workspace, trusted: "yes" }))).code).toBe(-32602);
    expect(await enabled()).toBe(false);
  });
});
