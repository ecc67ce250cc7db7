/**
 * Where one workspace ends (issue 25's remaining gaps): a removal or runtime stop journals a
 * deliberate close, not an agent crash; the legacy export serves the primary's sessions only; a
 * registered workspace inside a larger repository counts its own changes; display names refuse
 * what a reader cannot see.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { changedRules, updateTrustStore } from "../../src/trust/index.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { git, initRepo } from "../helpers/git-repo.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

const TOKEN = "boundaries-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

const dirs: TempDir[] = [];
/** A fresh canonical directory, trusted. */
function workspaceDir(): string {
  const dir = tempDir("svc-bound-ws-");
  dirs.push(dir);
  const path = realpathSync(dir.path);
  updateTrustStore(process.env.SVC_HOME!, (rules) => changedRules(rules, path, "trusted"));
  return path;
}

let d: FakeAgentDaemon;
const call = (method: string, path: string, body?: unknown) => d.json(method, path, body, AUTH);

beforeAll(async () => {
  d = await fakeAgentDaemon(["--token", TOKEN, "--trust-workspace"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
  for (const dir of dirs) await dir[Symbol.asyncDispose]();
});

async function sessionIn(cwd: string): Promise<string> {
  const created = await call("POST", "/session", { cwd, sessionScope: "thread" });
  expect(created.status).toBe(200);
  return created.body.sessionId;
}

/** A running prompt that waits until cancelled and one queued behind it; resolves once the first runs. */
async function busy(sse: SseClient, sessionId: string): Promise<{ running: string; queued: string }> {
  const running = (await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@hang" }] })).body.promptId;
  const queued = (await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@echo later" }] })).body.promptId;
  await sse.waitFor("session_update", (f) => f.envelope.promptId === running);
  return { running, queued };
}

/** What a deliberate close journals: the running prompt cancelled, the queued one `session_closed`, no `channel_closed` anywhere. */
async function expectClosedOnPurpose(sse: SseClient, prompts: { running: string; queued: string }, reason: string): Promise<void> {
  const closed = await sse.waitFor("session_closed");
  expect(closed.data).toMatchObject({ reason });
  const terminal = sse.frames.filter((f) => ["prompt_cancelled", "turn_complete", "turn_error", "session_died"].includes(f.event));
  expect(terminal.map((f) => [f.event, f.envelope.promptId, f.data.reason ?? f.data.stopReason ?? f.data.code])).toEqual([
    ["prompt_cancelled", prompts.running, "session_closed"],
    ["turn_complete", prompts.running, "cancelled"],
    ["turn_error", prompts.queued, "session_closed"],
  ]);
  expect(sse.frames.some((f) => JSON.stringify(f.data).includes("channel_closed"))).toBe(false);
}

describe("a removal or a runtime stop closes sessions on purpose", () => {
  test("DELETE /workspaces/:workspace: session_closed workspace_removed, prompts ended as a close ends them, the catalog says restorable", async () => {
    const b = workspaceDir();
    expect((await call("POST", "/workspaces", { cwd: b })).status).toBe(201);
    const sessionId = await sessionIn(b);
    await using sse = await d.events(sessionId, AUTH);
    const prompts = await busy(sse, sessionId);
    expect((await call("DELETE", `/workspaces/${encodeURIComponent(b)}`, { force: true })).status).toBe(200);
    await expectClosedOnPurpose(sse, prompts, "workspace_removed");
    const gone = await call("GET", `/session/${sessionId}/status`);
    expect([gone.status, gone.body.persistedState]).toEqual([404, "restorable"]);
  });

  test("a runtime stop: session_closed workspace_runtime_stop, prompts ended as a close ends them", async () => {
    const b = workspaceDir();
    const { id } = (await call("POST", "/workspaces", { cwd: b })).body;
    const sessionId = await sessionIn(b);
    await using sse = await d.events(sessionId, AUTH);
    const prompts = await busy(sse, sessionId);
    const preview = (await call("GET", "/workspaces/runtime-stop-options")).body.workspaces.find((w: { cwd: string }) => w.cwd === b);
    const stopped = await call("POST", `/workspaces/${id}/runtime/stop`, {
      confirmInterruptions: true,
      expectedChannelId: preview.channelId,
      expectedRuntimeEpoch: preview.runtimeEpoch,
      expectedStopToken: preview.stopToken,
      expectedSessionIds: [sessionId],
    });
    expect(stopped.status).toBe(200);
    await expectClosedOnPurpose(sse, prompts, "workspace_runtime_stop");
    expect((await call("DELETE", `/workspaces/${id}`)).status).toBe(200);
  });
});

test("the legacy export serves the primary's sessions only (legacy-primary); the qualified form serves another workspace's", async () => {
  const b = workspaceDir();
  const { id } = (await call("POST", "/workspaces", { cwd: b })).body;
  const inB = await sessionIn(b);
  const inPrimary = await sessionIn(d.workspace);
  for (const sessionId of [inB, inPrimary]) expect((await call("DELETE", `/session/${sessionId}`)).status).toBe(204);

  const legacy = await call("GET", `/session/${inB}/export?format=json`);
  expect([legacy.status, legacy.body]).toEqual([404, { error: `No session with id "${inB}"`, code: "session_not_found", sessionId: inB }]);
  expect((await call("GET", `/workspaces/${id}/session/${inB}/export?format=json`)).status).toBe(200);
  expect((await call("GET", `/session/${inPrimary}/export?format=json`)).status).toBe(200);
  // The transcript is persisted-workspace: any stored session.
  expect((await call("GET", `/session/${inB}/transcript`)).status).toBe(200);
  expect((await call("DELETE", `/workspaces/${id}`)).status).toBe(200);
});

test("a registered workspace inside a larger repository counts its own changes only", async () => {
  const repo = workspaceDir();
  mkdirSync(join(repo, "pkg"));
  initRepo(repo, { "top.txt": "t\n", "pkg/p.txt": "p\n" });
  writeFileSync(join(repo, "top.txt"), "changed\n");
  writeFileSync(join(repo, "loose.txt"), "x\n");
  git(repo, "rm", "-q", "--cached", "top.txt");
  writeFileSync(join(repo, "pkg", "p.txt"), "p\nq\n");
  const pkg = join(repo, "pkg");
  updateTrustStore(process.env.SVC_HOME!, (rules) => changedRules(rules, pkg, "trusted"));
  const { id } = (await call("POST", "/workspaces", { cwd: pkg })).body;
  const summary = await call("GET", `/workspaces/${id}/git`);
  expect(summary.body).toMatchObject({ v: 2, workspaceCwd: pkg, branch: "main", staged: 0, unstaged: 1, untracked: 0, conflicted: 0 });
  const diff = await call("GET", `/workspaces/${id}/git/diff`);
  expect(diff.body.files.map((f: { path: string }) => f.path)).toEqual(["pkg/p.txt"]);
  expect((await call("DELETE", `/workspaces/${id}`)).status).toBe(200);
});

describe("display names", () => {
  test.each([
    ["a right-to-left override", "invoice\u202Etxt.exe"],
    ["a bidi isolate", "a\u2066b\u2069"],
    ["a zero-width space", "admin\u200B"],
    ["a zero-width joiner at the end", "admin\u200D"],
    ["two zero-width joiners", "a\u200D\u200Db"],
    ["a Hangul filler", "\u3164"],
    ["a byte order mark inside", "a\uFEFFb"],
    ["a C1 control", "a\u0085b"],
    ["a C0 control", "a\u0007b"],
    ["a line separator", "a\u2028b"],
    ["a tag character", "a\u{E0041}b"],
    ["a lone surrogate", "a\uD800b"],
    ["257 code points", "é".repeat(257)],
    ["over 768 bytes", "😀".repeat(200)],
  ])("%s is refused with 400 invalid_display_name, on POST and on PATCH", async (_name, displayName) => {
    const b = workspaceDir();
    const posted = await call("POST", "/workspaces", { cwd: b, displayName });
    expect([posted.status, posted.body.code]).toEqual([400, "invalid_display_name"]);
    expect(typeof posted.body.error).toBe("string");
    const { id } = (await call("POST", "/workspaces", { cwd: b })).body;
    const patched = await call("PATCH", `/workspaces/${id}`, { displayName });
    expect([patched.status, patched.body.code]).toEqual([400, "invalid_display_name"]);
    expect((await call("DELETE", `/workspaces/${id}`)).status).toBe(200);
  });

  test("visible Unicode is kept: accents, CJK, emoji (joined ones too), a joiner a script needs, 256 code points", async () => {
    for (const displayName of ["Café – Ünïcode", "日本語のプロジェクト", "Rocket 🚀", "👩\u200D💻 dev", "می\u200Cخواهم", "é".repeat(256), "字".repeat(256)]) {
      const b = workspaceDir();
      const posted = await call("POST", "/workspaces", { cwd: b, displayName });
      expect([posted.status, posted.body.displayName]).toEqual([201, displayName]);
      expect((await call("DELETE", `/workspaces/${posted.body.id}`)).status).toBe(200);
    }
  });
});
