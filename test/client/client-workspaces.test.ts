/**
 * The client SDK's workspace registration and runtime-stop calls against a real daemon (fake agent
 * child): register, rename, list, forget, stop as previewed (and a stale preview refused), remove.
 * Every response goes through the contract check.
 */
import { expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { confirmationFor, createClient, DaemonApiError } from "../../src/client/index.ts";
import { changedRules, updateTrustStore } from "../../src/trust/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "client-workspaces-token";

async function failure(p: Promise<unknown>): Promise<DaemonApiError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(DaemonApiError);
    return error as DaemonApiError;
  }
  throw new Error("expected the call to fail");
}

test("register, rename, list, stop as previewed and remove a workspace through the SDK", async () => {
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
  await using dir = tempDir("svc-sdk-ws-");
  const cwd = realpathSync(dir.path);
  updateTrustStore(process.env.SVC_HOME!, (rules) => changedRules(rules, cwd, "trusted"));
  const c = createClient({ baseUrl: d.url, token: TOKEN, fetch: contractFetch });

  const registered = await c.registerWorkspace({ cwd, displayName: "SDK", persist: true });
  expect(registered).toEqual({ id: expect.any(String), cwd, displayName: "SDK", primary: false, trusted: true, persisted: true });
  expect((await c.capabilities()).workspaces?.map((w) => w.cwd)).toEqual([d.workspace, cwd]);
  expect((await failure(c.registerWorkspace({ cwd }))).code).toBe("workspace_exists");
  expect(await c.renameWorkspace(registered.id, "Renamed")).toMatchObject({ displayName: "Renamed", removable: true });
  expect((await c.workspaceRegistrations()).entries).toEqual([{ id: registered.id, cwd, displayName: "Renamed", active: true, persisted: true }]);

  const { sessionId } = await c.createSession({ cwd, sessionScope: "thread" });
  const preview = (await c.runtimeStopOptions()).workspaces.find((w) => w.workspaceId === registered.id)!;
  expect(preview.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
  const confirmation = confirmationFor(preview);
  const stale = await failure(c.stopWorkspaceRuntime(registered.id, { ...confirmation, expectedStopToken: "old" }));
  expect([stale.status, stale.code]).toEqual([409, "workspace_runtime_stop_stale"]);
  const receipt = await c.stopWorkspaceRuntime(cwd, confirmation);
  expect(receipt).toMatchObject({ stopped: true, released: true, closedSessionIds: [sessionId], workspaceId: registered.id });
  expect(() => confirmationFor({ ...preview, channelId: undefined })).toThrow();

  expect(await c.forgetWorkspaceRegistration(registered.id)).toEqual({ removed: true, active: true, restartRequired: true });
  const removed = await c.removeWorkspace(registered.id, { force: true });
  expect(removed).toMatchObject({ removed: true, workspaceCwd: cwd, forced: true, persistedRegistrationRemoved: false });
  expect((await failure(c.removeWorkspace(registered.id))).status).toBe(404);
});
