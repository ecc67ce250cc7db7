/**
 * Many workspaces, one daemon (issue 25): registration (dynamic and persistent, across a restart),
 * one agent child per workspace in its own cwd, owner routing of session routes (the legacy vote
 * route never crosses to another runtime; an untrusted registered owner is refused), removal with
 * live sessions, runtime stop with a fresh and a stale preview, the status and capabilities lists,
 * and twenty idle registrations that start no child.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { changedRules, updateTrustStore } from "../../src/trust/index.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { pidAlive } from "../helpers/pids.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "workspaces-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const proceedOnce = { outcome: { outcome: "selected", optionId: "proceed_once" } };

/** Sets the user's trust decision for `dir` in the daemon's trust store (what `svc trust` writes). */
const setTrust = (dir: string, desired: "trusted" | "untrusted") => updateTrustStore(process.env.SVC_HOME!, (rules) => changedRules(rules, dir, desired));

/** A fresh directory, canonical, trusted unless asked otherwise. */
function workspaceDir(dirs: TempDir[], trusted = true): string {
  const dir = tempDir("svc-reg-ws-");
  dirs.push(dir);
  const path = realpathSync(dir.path);
  if (trusted) setTrust(path, "trusted");
  return path;
}

const call = (d: FakeAgentDaemon, method: string, path: string, body?: unknown) => d.json(method, path, body, AUTH);

/** Opens a session in `cwd` and waits for its opening update, so its agent child is up. */
async function sessionIn(d: FakeAgentDaemon, cwd: string): Promise<string> {
  const created = await call(d, "POST", "/session", { cwd, sessionScope: "thread" });
  expect(created.status).toBe(200);
  expect(created.body.workspaceCwd).toBe(cwd);
  return created.body.sessionId;
}

/** Starts a prompt asking for permission and waits for its request; returns the request id. */
async function askPermission(d: FakeAgentDaemon, sessionId: string): Promise<string> {
  await using sse = await d.events(sessionId, AUTH);
  const admitted = await call(d, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@permission Write notes.md" }] });
  expect(admitted.status).toBe(202);
  const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === admitted.body.promptId);
  return request.data.requestId;
}

const dirs: TempDir[] = [];
afterAll(async () => {
  for (const dir of dirs) await dir[Symbol.asyncDispose]();
});

describe("registration", () => {
  let d: FakeAgentDaemon;
  let file: string;
  beforeAll(async () => {
    d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace", "--max-workspaces", "4"]);
    file = join(workspaceDir(dirs), "a-file.txt");
    writeFileSync(file, "x");
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test("a dynamic registration answers 201 with the canonical path, is listed by /capabilities, renamed by PATCH and removed by DELETE", async () => {
    const ws = workspaceDir(dirs);
    const registered = await call(d, "POST", "/workspaces", { cwd: `${ws}/./`, displayName: "  Two " });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), cwd: ws, displayName: "Two", primary: false, trusted: true });
    const { id } = registered.body;
    expect((await call(d, "POST", "/workspaces", { cwd: ws })).body).toMatchObject({ code: "workspace_exists" });

    const caps = (await call(d, "GET", "/capabilities")).body;
    expect(caps.workspaces).toEqual([
      { id: expect.any(String), cwd: d.workspace, primary: true, trusted: true, removable: false },
      { id, cwd: ws, displayName: "Two", primary: false, trusted: true, removable: true },
    ]);
    expect(caps.limits.maxRegisteredWorkspaces).toBe(4);
    expect(caps.features).toEqual(expect.arrayContaining(["dynamic_workspace_registration", "persistent_workspace_registration", "workspace_display_name", "workspace_runtime_removal", "workspace_runtime_stop"]));

    const renamed = await call(d, "PATCH", `/workspaces/${encodeURIComponent(`${ws}/`)}`, { displayName: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ id, cwd: ws, displayName: "Renamed", primary: false, trusted: true, removable: true });
    expect((await call(d, "PATCH", `/workspaces/${id}`, { displayName: null })).body).toEqual({ id, cwd: ws, primary: false, trusted: true, removable: true });
    expect((await call(d, "PATCH", `/workspaces/${id}`, { other: 1 })).body).toMatchObject({ code: "unsupported_field" });
    expect((await call(d, "PATCH", `/workspaces/${id}`, {})).body).toMatchObject({ code: "empty_patch" });
    expect((await call(d, "PATCH", `/workspaces/${id}`, { displayName: "a\u0007b" })).body).toMatchObject({ code: "invalid_display_name" });

    const removed = await call(d, "DELETE", `/workspaces/${id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      removed: true,
      workspaceId: id,
      workspaceCwd: ws,
      forced: false,
      persistedRegistrationRemoved: false,
      activity: { sessions: 0, activePrompts: 0, pendingSessionStarts: 0 },
      closedSessionIds: [],
    });
    expect((await call(d, "PATCH", `/workspaces/${id}`, { displayName: "x" })).status).toBe(404);
    expect((await call(d, "GET", "/capabilities")).body.workspaces).toHaveLength(1);
    expect((await call(d, "POST", "/session", { cwd: ws })).body).toMatchObject({ code: "workspace_mismatch" });
  });

  test.each([
    ["the filesystem root", () => "/", 409, "workspace_path_reserved"],
    ["the data dir", () => process.env.SVC_HOME!, 409, "workspace_path_reserved"],
    ["a folder inside the data dir", () => (mkdirSync(join(process.env.SVC_HOME!, "inner"), { recursive: true }), join(process.env.SVC_HOME!, "inner")), 409, "workspace_path_reserved"],
    ["a file", () => file, 400, "invalid_path"],
    ["a missing path", () => "/nonexistent/svc-workspace", 400, "invalid_path"],
    ["a relative path", () => "some/dir", 400, "invalid_path"],
    ["an empty path", () => " ", 400, "invalid_path"],
    ["the primary workspace", () => d.workspace, 409, "workspace_exists"],
    ["a folder inside the primary workspace", () => (mkdirSync(join(d.workspace, "sub"), { recursive: true }), join(d.workspace, "sub")), 409, "workspace_nested"],
  ])("%s is refused", async (_name, path, status, code) => {
    const reply = await call(d, "POST", "/workspaces", { cwd: path() });
    expect([reply.status, reply.body.code]).toEqual([status, code]);
  });

  test("a file is refused as not a directory, and removing a persistent registration forgets it", async () => {
    expect((await call(d, "POST", "/workspaces", { cwd: file })).body).toEqual({ error: "Path is not a directory", code: "invalid_path" });
    const cwd = workspaceDir(dirs);
    expect((await call(d, "POST", "/workspaces", { cwd, persist: true })).status).toBe(201);
    expect((await call(d, "GET", "/workspace-registrations")).body.entries.map((e: { cwd: string }) => e.cwd)).toEqual([cwd]);
    expect((await call(d, "DELETE", `/workspaces/${encodeURIComponent(cwd)}`)).body).toMatchObject({ removed: true, persistedRegistrationRemoved: true });
    expect((await call(d, "GET", "/workspace-registrations")).body.entries).toEqual([]);
  });

  test("bad flags are refused and the count is bounded by --max-workspaces (the primary included)", async () => {
    expect((await call(d, "POST", "/workspaces", { cwd: workspaceDir(dirs), persist: "yes" })).body).toMatchObject({ code: "invalid_persist_flag" });
    expect((await call(d, "POST", "/workspaces", { cwd: d.workspace, persist: true })).body).toMatchObject({ code: "invalid_persist_target" });
    const added = [workspaceDir(dirs), workspaceDir(dirs), workspaceDir(dirs)];
    for (const cwd of added) expect((await call(d, "POST", "/workspaces", { cwd })).status).toBe(201);
    const over = await call(d, "POST", "/workspaces", { cwd: workspaceDir(dirs) });
    expect([over.status, over.body.code]).toEqual([409, "workspace_limit_reached"]);
    for (const cwd of added) expect((await call(d, "DELETE", `/workspaces/${encodeURIComponent(cwd)}`)).status).toBe(200);
  });

  test("the primary cannot be removed; a selector that is neither an id nor a path is 400", async () => {
    const primary = await call(d, "DELETE", `/workspaces/${encodeURIComponent(d.workspace)}`);
    expect([primary.status, primary.body.code]).toEqual([409, "primary_workspace_removal_forbidden"]);
    expect((await call(d, "DELETE", "/workspaces/not-a-workspace")).status).toBe(400);
  });
});

test("registration is strict: without a token the daemon answers 401 token_required", async () => {
  await using d = await fakeAgentDaemon();
  const reply = await d.json("POST", "/workspaces", { cwd: workspaceDir(dirs) });
  expect([reply.status, reply.body.code]).toEqual([401, "token_required"]);
});

test("a persistent registration is served again after a restart; a dynamic one is not", async () => {
  const primary = workspaceDir(dirs);
  const kept = workspaceDir(dirs);
  const dynamic = workspaceDir(dirs);
  {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: primary });
    const persisted = await call(d, "POST", "/workspaces", { cwd: kept, persist: true, displayName: "Kept" });
    expect(persisted.status).toBe(201);
    expect(persisted.body).toMatchObject({ cwd: kept, displayName: "Kept", persisted: true });
    expect((await call(d, "POST", "/workspaces", { cwd: dynamic })).status).toBe(201);
    expect((await call(d, "GET", "/workspace-registrations")).body).toEqual({
      schemaVersion: 1,
      primaryWorkspace: primary,
      entries: [{ id: persisted.body.id, cwd: kept, displayName: "Kept", active: true, persisted: true }],
    });
  }
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: primary });
  const list = (await call(d, "GET", "/workspace-registrations")).body;
  expect(list.entries).toEqual([{ id: expect.any(String), cwd: kept, displayName: "Kept", active: true, persisted: true }]);
  expect((await call(d, "GET", "/capabilities")).body.workspaces.map((w: { cwd: string }) => w.cwd)).toEqual([primary, kept]);
  // Sessions open there again; forgetting the registration keeps it served until restart.
  await sessionIn(d, kept);
  const forgot = await call(d, "DELETE", `/workspace-registrations/${list.entries[0].id}`);
  expect(forgot.body).toEqual({ removed: true, active: true, restartRequired: true });
  expect((await call(d, "GET", "/workspace-registrations")).body.entries).toEqual([]);
  expect((await call(d, "DELETE", `/workspace-registrations/${list.entries[0].id}`)).body).toMatchObject({ code: "workspace_registration_not_found" });
});

test("a stored registration not served at start, registered again and removed, does not come back at the next start", async () => {
  const primary = workspaceDir(dirs);
  const gone = workspaceDir(dirs);
  const args = ["--token", TOKEN, "--trust-workspace"];
  {
    await using d = await fakeAgentDaemon(args, { workspace: primary });
    expect((await call(d, "POST", "/workspaces", { cwd: gone, persist: true })).status).toBe(201);
  }
  rmSync(gone, { recursive: true });
  {
    await using d = await fakeAgentDaemon(args, { workspace: primary });
    // The core loads the stored registrations while the folder is missing: it is not served.
    expect((await call(d, "GET", "/workspace-registrations")).body.entries).toMatchObject([{ cwd: gone, active: false }]);
    mkdirSync(gone);
    expect((await call(d, "POST", "/workspaces", { cwd: gone })).status).toBe(201);
    const removed = await call(d, "DELETE", `/workspaces/${encodeURIComponent(gone)}`);
    expect(removed.body).toMatchObject({ removed: true, persistedRegistrationRemoved: true });
  }
  await using d = await fakeAgentDaemon(args, { workspace: primary });
  expect((await call(d, "GET", "/capabilities")).body.workspaces.map((w: { cwd: string }) => w.cwd)).toEqual([primary]);
  expect((await call(d, "GET", "/workspace-registrations")).body.entries).toEqual([]);
});

test("a session start the workspace's removal abandons is 503 workspace_runtime_unavailable with Retry-After: 1, not a shutdown", async () => {
  const b = workspaceDir(dirs);
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { env: { FAKE_AGENT_INIT_HANG: "1" } });
  expect((await call(d, "POST", "/workspaces", { cwd: b })).status).toBe(201);
  const creating = d.fetch("/session", { method: "POST", headers: AUTH, body: JSON.stringify({ cwd: b, sessionScope: "thread" }) });
  await d.waitForAgents(1); // its child is up, waiting in initialize
  expect((await call(d, "DELETE", `/workspaces/${encodeURIComponent(b)}`, { force: true })).status).toBe(200);
  const reply = await creating;
  expect([reply.status, reply.headers.get("retry-after"), ((await reply.json()) as { code: string }).code]).toEqual([503, "1", "workspace_runtime_unavailable"]);
  expect((await d.fetch("/health")).status).toBe(200);
});

describe("two workspaces at once", () => {
  let d: FakeAgentDaemon;
  let b: string;
  beforeAll(async () => {
    d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    b = workspaceDir(dirs);
    expect((await call(d, "POST", "/workspaces", { cwd: b })).status).toBe(201);
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test("each workspace's sessions run on its own child, in its own cwd; /daemon/status lists each runtime", async () => {
    const inA = await sessionIn(d, d.workspace);
    const inB = await sessionIn(d, b);
    const pids = await d.waitForAgents(2);
    const cwds = pids.map((pid) => readlinkSync(`/proc/${pid}/cwd`));
    expect(cwds.sort()).toEqual([d.workspace, b].sort());
    const status = (await call(d, "GET", "/daemon/status")).body;
    expect(status.limits.maxWorkspaces).toBe(256);
    expect(status.runtime.workspaces).toEqual([
      { workspaceId: expect.any(String), workspaceCwd: d.workspace, primary: true, state: "live", childPid: expect.any(Number), sessions: 1, lastError: null },
      { workspaceId: expect.any(String), workspaceCwd: b, primary: false, state: "live", childPid: expect.any(Number), sessions: 1, lastError: null },
    ]);
    expect(new Set(status.runtime.workspaces.map((w: { childPid: number }) => w.childPid))).toEqual(new Set(pids));
    for (const id of [inA, inB]) expect((await call(d, "DELETE", `/session/${id}`)).status).toBe(204);
  });

  test("a vote on the legacy route for a session of another workspace is the lost-vote 404; the session route takes it", async () => {
    const inB = await sessionIn(d, b);
    const requestId = await askPermission(d, inB);
    const legacy = await call(d, "POST", `/permission/${requestId}`, proceedOnce);
    expect([legacy.status, legacy.body]).toEqual([404, { error: "No pending permission request", requestId }]);
    expect((await call(d, "POST", `/session/${inB}/permission/${requestId}`, proceedOnce)).status).toBe(200);
    expect((await call(d, "DELETE", `/session/${inB}`)).status).toBe(204);
  });

  test("an untrusted registered workspace: a create is 403, and its live session's routes are 403 once trust is revoked", async () => {
    const c = workspaceDir(dirs, false);
    expect((await call(d, "POST", "/workspaces", { cwd: c })).body).toMatchObject({ trusted: false });
    const refused = await call(d, "POST", "/session", { cwd: c });
    expect([refused.status, refused.body]).toEqual([403, { error: "Workspace is not trusted.", code: "untrusted_workspace", workspaceCwd: c, workspaceId: expect.any(String) }]);

    setTrust(c, "trusted");
    const inC = await sessionIn(d, c);
    const requestId = await askPermission(d, inC);
    setTrust(c, "untrusted");
    const vote = await call(d, "POST", `/session/${inC}/permission/${requestId}`, proceedOnce);
    expect([vote.status, vote.body.code, vote.body.sessionId]).toEqual([403, "untrusted_workspace", inC]);
    expect((await call(d, "GET", `/session/${inC}/status`)).status).toBe(403);
    const stop = await call(d, "POST", `/workspaces/${encodeURIComponent(c)}/runtime/stop`, {
      confirmInterruptions: true,
      expectedChannelId: "c",
      expectedRuntimeEpoch: 1,
      expectedStopToken: "t",
      expectedSessionIds: [inC],
    });
    expect([stop.status, stop.body.code]).toEqual([403, "untrusted_workspace"]);
    // The primary is exempt from the check.
    expect((await call(d, "DELETE", `/workspaces/${encodeURIComponent(c)}`, { force: true })).status).toBe(200);
  });

  test("removing a workspace with live sessions: 409 workspace_busy unless forced; forced, they close and their history stays readable", async () => {
    const e = workspaceDir(dirs);
    expect((await call(d, "POST", "/workspaces", { cwd: e })).status).toBe(201);
    const first = await sessionIn(d, e);
    const second = await sessionIn(d, e);
    const busy = await call(d, "DELETE", `/workspaces/${encodeURIComponent(e)}`);
    expect([busy.status, busy.body.code, busy.body.activity]).toEqual([409, "workspace_busy", { sessions: 2, activePrompts: 0, pendingSessionStarts: 0 }]);
    expect((await call(d, "DELETE", `/workspaces/${encodeURIComponent(e)}`, { force: "yes" })).body).toMatchObject({ code: "invalid_force_flag" });
    // Confirmed with another set of sessions than the live one (one missing, one swapped, one extra, none): refused, nothing removed.
    for (const expectedSessionIds of [[first], [first, "s-gone"], [first, second, "s-gone"], []]) {
      const stale = await call(d, "DELETE", `/workspaces/${encodeURIComponent(e)}`, { force: true, expectedSessionIds });
      expect([stale.status, stale.body.code, [...stale.body.liveSessionIds].sort()]).toEqual([409, "workspace_sessions_changed", [first, second].sort()]);
    }
    expect((await call(d, "DELETE", `/workspaces/${encodeURIComponent(e)}`, { force: true, expectedSessionIds: [first, first] })).body).toMatchObject({ code: "invalid_expected_sessions" });
    expect((await call(d, "GET", `/session/${first}/status`)).status).toBe(200);

    await using sse = await d.events(first, AUTH);
    const pidsBefore = (await call(d, "GET", "/daemon/status")).body.runtime.workspaces.find((w: { workspaceCwd: string }) => w.workspaceCwd === e).childPid;
    const removed = await call(d, "DELETE", `/workspaces/${encodeURIComponent(e)}`, { force: true, expectedSessionIds: [second, first] });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ removed: true, forced: true, workspaceCwd: e });
    expect(removed.body.closedSessionIds.sort()).toEqual([first, second].sort());
    const closed = await sse.waitFor("session_closed");
    expect(closed.data).toMatchObject({ reason: "workspace_removed" });
    expect((await call(d, "GET", `/session/${first}/status`)).status).toBe(404);
    const transcript = await call(d, "GET", `/session/${first}/transcript`);
    expect(transcript.status).toBe(200);
    await until(() => !pidAlive(pidsBefore), 5000, "the removed workspace's child to exit");
    expect((await call(d, "POST", "/session", { cwd: e })).body).toMatchObject({ code: "workspace_mismatch" });
    // A session of a workspace no longer served cannot be restored into another one.
    expect((await call(d, "POST", `/session/${first}/load`, {})).body).toMatchObject({ code: "workspace_mismatch" });
  });
});

test("--max-sessions holds per workspace and --max-total-sessions across them; a workspace's child stops once idle", async () => {
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace", "--max-sessions", "1", "--max-total-sessions", "2", "--channel-idle-timeout-ms", "100"]);
  const b = workspaceDir(dirs);
  const c = workspaceDir(dirs);
  for (const cwd of [b, c]) expect((await call(d, "POST", "/workspaces", { cwd })).status).toBe(201);
  await sessionIn(d, d.workspace);
  const inB = await sessionIn(d, b);
  const perWorkspace = await call(d, "POST", "/session", { cwd: b, sessionScope: "thread" });
  expect([perWorkspace.status, perWorkspace.body.code, perWorkspace.body.scope]).toEqual([503, "session_limit_exceeded", "workspace"]);
  const total = await call(d, "POST", "/session", { cwd: c, sessionScope: "thread" });
  expect([total.status, total.body.code, total.body.scope]).toEqual([503, "session_limit_exceeded", "total"]);

  const childOfB = () => (d.json("GET", "/daemon/status", undefined, AUTH) as Promise<{ body: any }>).then((r) => r.body.runtime.workspaces.find((w: { workspaceCwd: string }) => w.workspaceCwd === b));
  const pid = (await childOfB()).childPid;
  expect(pid).toBeNumber();
  expect((await call(d, "DELETE", `/session/${inB}`)).status).toBe(204);
  await until(async () => (await childOfB()).state === "cold", 5000, "workspace B's idle child to stop");
  await until(() => !pidAlive(pid), 5000, "workspace B's idle child to exit");
});

describe("runtime stop", () => {
  test("a fresh preview stops the child and closes its sessions (receipt; the same preview again answers it again); a stale one is refused", async () => {
    await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
    const b = workspaceDir(dirs);
    const { id } = (await call(d, "POST", "/workspaces", { cwd: b })).body;
    const preview = async () => (await call(d, "GET", "/workspaces/runtime-stop-options")).body.workspaces.find((w: { cwd: string }) => w.cwd === b);

    const cold = await preview();
    expect(cold).toMatchObject({ workspaceId: id, primary: false, state: "cold", canStop: false, blockedReasons: ["not_live"], runtimeEpoch: 0, sessions: [] });
    const blocked = await call(d, "POST", `/workspaces/${id}/runtime/stop`, {
      confirmInterruptions: true,
      expectedChannelId: "none",
      expectedRuntimeEpoch: 0,
      expectedStopToken: cold.stopToken,
      expectedSessionIds: [],
    });
    expect([blocked.status, blocked.body.code]).toEqual([409, "workspace_runtime_stop_blocked"]);

    const sessionId = await sessionIn(d, b);
    const [pid] = await d.waitForAgents(1);
    const live = await preview();
    expect(typeof live.channelId).toBe("string");
    expect(live).toMatchObject({ state: "active", canStop: true, blockedReasons: [], runtimeEpoch: 1 });
    expect(live.sessions).toEqual([{ sessionId, hasActivePrompt: false, queuedPrompts: 0, isWaitingForPermission: false }]);
    const confirm = { confirmInterruptions: true, expectedChannelId: live.channelId, expectedRuntimeEpoch: 1, expectedStopToken: live.stopToken, expectedSessionIds: [sessionId] };

    const bad = await call(d, "POST", `/workspaces/${id}/runtime/stop`, { ...confirm, confirmInterruptions: false });
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_runtime_stop_confirmation"]);
    const wrongSessions = await call(d, "POST", `/workspaces/${id}/runtime/stop`, { ...confirm, expectedSessionIds: [] });
    expect([wrongSessions.status, wrongSessions.body.code]).toEqual([409, "workspace_runtime_stop_stale"]);
    const otherChannel = await call(d, "POST", `/workspaces/${id}/runtime/stop`, { ...confirm, expectedChannelId: "another-channel" });
    expect([otherChannel.status, otherChannel.body.code]).toEqual([409, "workspace_runtime_stop_stale"]);
    const otherSession = await call(d, "POST", `/workspaces/${id}/runtime/stop`, { ...confirm, expectedSessionIds: ["another-session"] });
    expect([otherSession.status, otherSession.body.code]).toEqual([409, "workspace_runtime_stop_stale"]);

    const stopped = await call(d, "POST", `/workspaces/${id}/runtime/stop`, confirm);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual({
      channelId: live.channelId,
      runtimeEpoch: 1,
      stopToken: live.stopToken,
      state: "stopped",
      stopped: true,
      released: true,
      affectedSessionIds: [sessionId],
      closedSessionIds: [sessionId],
      interruptedSessionIds: [sessionId],
      remainingSessionIds: [],
      workspaceId: id,
      committedAcpChildren: 0,
      maxConcurrentChildren: 256,
    });
    await until(() => !pidAlive(pid!), 5000, "the stopped child to exit");
    expect((await call(d, "GET", `/session/${sessionId}/status`)).status).toBe(404);
    // The same preview again: its receipt, nothing stopped twice.
    expect((await call(d, "POST", `/workspaces/${id}/runtime/stop`, confirm)).body).toEqual(stopped.body);

    // The workspace stays registered: a new session starts a fresh child (epoch 2); the old preview is stale.
    const next = await sessionIn(d, b);
    const again = await preview();
    expect(again).toMatchObject({ runtimeEpoch: 2, lastStop: { stopToken: live.stopToken, stopped: true } });
    expect(again.stopToken).not.toBe(live.stopToken);
    const stale = await call(d, "POST", `/workspaces/${id}/runtime/stop`, { ...confirm, expectedSessionIds: [next], expectedStopToken: again.stopToken });
    expect([stale.status, stale.body.code]).toEqual([409, "workspace_runtime_stop_stale"]);
  });
});

test("while a stop closes a workspace's sessions, the routes of those not closed yet answer 503 workspace_runtime_unavailable with Retry-After: 1", async () => {
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
  const b = workspaceDir(dirs);
  const { id } = (await call(d, "POST", "/workspaces", { cwd: b })).body;
  const first = await sessionIn(d, b);
  const second = await sessionIn(d, b);
  // The agent stops answering for a while, so closing the sessions takes that long.
  expect((await call(d, "POST", `/session/${first}/prompt`, { prompt: [{ type: "text", text: "@block 1500" }] })).status).toBe(202);
  const preview = (await call(d, "GET", "/workspaces/runtime-stop-options")).body.workspaces.find((w: { cwd: string }) => w.cwd === b);
  const stopping = call(d, "POST", `/workspaces/${id}/runtime/stop`, {
    confirmInterruptions: true,
    expectedChannelId: preview.channelId,
    expectedRuntimeEpoch: preview.runtimeEpoch,
    expectedStopToken: preview.stopToken,
    expectedSessionIds: preview.sessions.map((s: { sessionId: string }) => s.sessionId),
  });
  let unavailable: Awaited<ReturnType<typeof call>> | null = null;
  await until(async () => {
    const reply = await call(d, "GET", `/session/${first === preview.sessions[0].sessionId ? second : first}/status`);
    if (reply.status === 503) unavailable = reply;
    return unavailable !== null;
  }, 5000, "a session route answering 503 during the stop");
  expect([unavailable!.status, unavailable!.headers.get("retry-after"), unavailable!.body]).toEqual([
    503,
    "1",
    { error: "Workspace runtime is not active.", code: "workspace_runtime_unavailable", workspaceCwd: b, workspaceId: id },
  ]);
  expect((await stopping).status).toBe(200);
});

test("twenty registered idle workspaces start no agent child", async () => {
  await using d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"]);
  for (let i = 0; i < 20; i++) expect((await call(d, "POST", "/workspaces", { cwd: workspaceDir(dirs) })).status).toBe(201);
  const status = (await call(d, "GET", "/daemon/status")).body;
  expect(status.runtime.workspaces).toHaveLength(21);
  expect(status.runtime.workspaces.every((w: { state: string; childPid: number | null }) => w.state === "cold" && w.childPid === null)).toBe(true);
  expect((await call(d, "GET", "/workspaces/runtime-stop-options")).body.committedAcpChildren).toBe(0);
  expect(await d.agentPids()).toEqual([]);
});
