/**
 * Sessions in a git worktree (`POST /session` with `worktree`) and `POST /session/:id/worktree-reset`,
 * over HTTP with the fake agent in real repositories: the checkout, the agent's cwd, two sessions
 * editing the same file apart, the reset's replacement, a restart, hostile names, a workspace
 * that is no repository, and what a failed create leaves (nothing).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { git, initRepo } from "../helpers/git-repo.ts";
import { runTurn } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";

/** git is found on PATH (the daemon runs the user's git). */
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

const wtPath = (ws: string, slug: string) => join(ws, ".qwen", "worktrees", slug);

/** The `cwd` of the last `method` request the daemon sent its agents. */
async function lastCwd(d: FakeAgentDaemon, method: string): Promise<unknown> {
  return ((await d.sentToAgent(method)).at(-1)?.params as { cwd?: unknown } | undefined)?.cwd;
}

async function worktreeSession(d: FakeAgentDaemon, slug?: string) {
  const reply = await d.json("POST", "/session", { worktree: slug === undefined ? {} : { slug } });
  expect([reply.status, reply.body.error]).toEqual([200, undefined]);
  return reply.body as { sessionId: string; clientId: string; worktree: { slug: string; path: string; branch: string }; worktreeState: string; currentCwd: string };
}

describe("a session in a worktree", () => {
  test("gets a fresh checkout on a new branch; the agent works there; status, list and the catalog show it", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const created = await worktreeSession(d, "task-1");
    const path = wtPath(ws.path, "task-1");
    expect(created).toMatchObject({ worktree: { slug: "task-1", path, branch: "worktree-task-1" }, worktreeState: "persisted-v1", currentCwd: path, attached: false, workspaceCwd: ws.path });
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("base\n");
    expect(git(ws.path, "branch", "--list", "--format=%(refname:short)", "worktree-task-1").trim()).toBe("worktree-task-1");
    expect(readFileSync(join(ws.path, ".qwen", ".gitignore"), "utf8")).toContain("worktrees/");
    expect(git(ws.path, "status", "--porcelain")).toBe("");
    expect(await lastCwd(d, "session/new")).toBe(path);
    const status = await d.json("GET", `/session/${created.sessionId}/status`);
    expect(status.body).toMatchObject({ worktree: created.worktree, worktreeState: "persisted-v1", currentCwd: path });
    const listed = await d.json("GET", `/workspace/${workspaceId(ws.path)}/sessions`);
    expect((listed.body.sessions as Record<string, unknown>[]).find((s) => s.sessionId === created.sessionId)).toMatchObject({ worktree: created.worktree });
    // A fresh name when none is given, in the reference's shape.
    const auto = await worktreeSession(d);
    expect(auto.worktree.slug).toMatch(/^[a-z]+-[a-z]+-[0-9a-f]{6}$/);
    expect(existsSync(auto.worktree.path)).toBe(true);
  });

  test("two worktree sessions edit the same file independently; the workspace's own copy is untouched", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const one = await worktreeSession(d, "one");
    const two = await worktreeSession(d, "two");
    await runTurn(d, one.sessionId, "@checkpoint-write a.txt from-one");
    await runTurn(d, two.sessionId, "@checkpoint-write a.txt from-two");
    expect(readFileSync(join(one.worktree.path, "a.txt"), "utf8")).toBe("from-one");
    expect(readFileSync(join(two.worktree.path, "a.txt"), "utf8")).toBe("from-two");
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("base\n");
    // The turn's snapshot is the worktree's file, as the session's root sees it.
    const snaps = await d.json("GET", `/session/${one.sessionId}/rewind/snapshots`);
    expect(snaps.body.snapshots[0].files).toEqual([{ path: "a.txt", change: "modified", source: "tool", restorable: true }]);
  });

  test("closing the session leaves its worktree and the work in it", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const one = await worktreeSession(d, "keep");
    await runTurn(d, one.sessionId, "@checkpoint-write a.txt edited");
    expect((await d.json("DELETE", `/session/${one.sessionId}`)).status).toBe(204);
    expect(readFileSync(join(one.worktree.path, "a.txt"), "utf8")).toBe("edited");
  });
});

describe("rewind and branch of a worktree session", () => {
  test("a rewind checks and restores the checkout's files, never the workspace's own copies (review R15)", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    const auth = { Authorization: "Bearer w-rewind-token" };
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { ...ENV, SVC_SERVER_TOKEN: "w-rewind-token" } });
    const created = await d.json("POST", "/session", { worktree: { slug: "rw" } }, auth);
    expect(created.status).toBe(200);
    const sessionId = created.body.sessionId as string;
    const path = wtPath(ws.path, "rw");
    const turn = await runTurn(d, sessionId, "@checkpoint-write a.txt changed", auth);
    await runTurn(d, sessionId, "@checkpoint-write new.txt made", auth);
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("changed");
    // The user's own copies in the workspace, which the session never touched.
    writeFileSync(join(ws.path, "a.txt"), "user's edit\n");
    writeFileSync(join(ws.path, "new.txt"), "user's file\n");
    const rewind = await d.json("POST", `/session/${sessionId}/rewind`, { promptId: turn.data.promptId, rewindFiles: true, rewindConversation: false }, auth);
    expect([rewind.status, rewind.body.error]).toEqual([200, undefined]);
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("base\n");
    expect(existsSync(join(path, "new.txt"))).toBe(false);
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("user's edit\n");
    expect(readFileSync(join(ws.path, "new.txt"), "utf8")).toBe("user's file\n");
  });

  test("a branch of a worktree session works in the parent's checkout and records it (review R15)", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const created = await worktreeSession(d, "br");
    await runTurn(d, created.sessionId, "@say first");
    const reply = await d.json("POST", `/session/${created.sessionId}/branch`, { turnIndex: 0 });
    expect([reply.status, reply.body.error]).toEqual([201, undefined]);
    const branch = reply.body.sessionId as string;
    expect(await lastCwd(d, "session/new")).toBe(created.worktree.path);
    const status = await d.json("GET", `/session/${branch}/status`);
    expect(status.body).toMatchObject({ worktree: created.worktree, currentCwd: created.worktree.path });
    await runTurn(d, branch, "@checkpoint-write from-branch.txt b");
    expect(existsSync(join(created.worktree.path, "from-branch.txt"))).toBe(true);
    expect(existsSync(join(ws.path, "from-branch.txt"))).toBe(false);
  });
});

describe("worktree reset", () => {
  test("replaces the session by a fresh one in the same checkout; the old one is closed and cannot be loaded", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const old = await worktreeSession(d, "task");
    await runTurn(d, old.sessionId, "@checkpoint-write a.txt work");
    await using oldEvents = await d.events(old.sessionId);
    const reset = await d.json("POST", `/session/${old.sessionId}/worktree-reset`, { sourceType: "ci" });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ worktree: old.worktree, worktreeState: "persisted-v1", currentCwd: old.worktree.path, attached: false, sourceType: "ci" });
    expect(reset.body.sessionId).not.toBe(old.sessionId);
    await oldEvents.waitFor("session_closed", (f) => f.data.reason === "worktree_reset", 10_000);
    expect((await d.json("GET", `/session/${old.sessionId}/status`)).status).toBe(404);
    const loadOld = await d.json("POST", `/session/${old.sessionId}/load`, {});
    expect([loadOld.status, loadOld.body.code, loadOld.body.replacementSessionId]).toEqual([409, "worktree_session_superseded", reset.body.sessionId]);
    const again = await d.json("POST", `/session/${old.sessionId}/worktree-reset`, {});
    expect([again.status, again.body.code]).toEqual([409, "worktree_session_superseded"]);
    // The work stays; the replacement works in the same checkout.
    expect(readFileSync(join(old.worktree.path, "a.txt"), "utf8")).toBe("work");
    expect(await lastCwd(d, "session/new")).toBe(old.worktree.path);
    await runTurn(d, reset.body.sessionId, "@checkpoint-write b.txt next");
    expect(readFileSync(join(old.worktree.path, "b.txt"), "utf8")).toBe("next");
    expect((await d.json("GET", "/capabilities")).body.features).toContain("session_worktree_reset_v1");
  });

  test("a closed worktree session is reset from the catalog: the replacement takes its checkout", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const old = await worktreeSession(d, "closed");
    expect((await d.json("DELETE", `/session/${old.sessionId}`)).status).toBe(204);
    const reset = await d.json("POST", `/session/${old.sessionId}/worktree-reset`, {});
    expect([reset.status, reset.body.worktree]).toEqual([200, old.worktree]);
    const listed = await d.json("GET", `/workspace/${workspaceId(ws.path)}/sessions`);
    expect((listed.body.sessions as Record<string, unknown>[]).find((s) => s.sessionId === old.sessionId)).toMatchObject({ supersededBy: reset.body.sessionId });
    const plain = await d.createSession({ sessionScope: "thread" });
    expect((await d.json("DELETE", `/session/${plain.sessionId}`)).status).toBe(204);
    const unsupported = await d.json("POST", `/session/${plain.sessionId}/worktree-reset`, {});
    expect([unsupported.status, unsupported.body.code]).toEqual([409, "worktree_reset_unsupported"]);
  });

  test("a reset racing a load of the closed session: the old session never stays live beside its replacement (review R15)", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    for (const slug of ["race-1", "race-2", "race-3"]) {
      const old = await worktreeSession(d, slug);
      expect((await d.json("DELETE", `/session/${old.sessionId}`)).status).toBe(204);
      const [reset, load] = await Promise.all([d.json("POST", `/session/${old.sessionId}/worktree-reset`, {}), d.json("POST", `/session/${old.sessionId}/load`, {})]);
      expect(reset.status === 200 || load.status === 200).toBe(true);
      if (reset.status !== 200) continue;
      const prompt = await d.json("POST", `/session/${old.sessionId}/prompt`, { prompt: [{ type: "text", text: "@say still here?" }] });
      expect(prompt.status).not.toBe(202);
      const again = await d.json("POST", `/session/${old.sessionId}/load`, {});
      expect([again.status, again.body.code]).toEqual([409, "worktree_session_superseded"]);
    }
  });

  test("refused while a prompt runs (409 worktree_reset_active), for a session outside a worktree (409), and for a checkout that went away", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const plain = await d.createSession({ sessionScope: "thread" });
    const unsupported = await d.json("POST", `/session/${plain.sessionId}/worktree-reset`, {});
    expect([unsupported.status, unsupported.body.code]).toEqual([409, "worktree_reset_unsupported"]);
    const busy = await worktreeSession(d, "busy");
    await using events = await d.events(busy.sessionId);
    const running = await d.json("POST", `/session/${busy.sessionId}/prompt`, { prompt: [{ type: "text", text: "@hang" }] });
    expect(running.status).toBe(202);
    const opened = (await d.sentToAgent("session/new")).length;
    const refused = await d.json("POST", `/session/${busy.sessionId}/worktree-reset`, {});
    expect([refused.status, refused.body.code]).toEqual([409, "worktree_reset_active"]);
    // Refused before any replacement was started.
    expect((await d.sentToAgent("session/new")).length).toBe(opened);
    expect((await d.json("POST", `/session/${busy.sessionId}/cancel`, {})).status).toBe(204);
    await events.waitFor("turn_complete", (f) => f.data.promptId === running.body.promptId, 10_000);
    git(ws.path, "worktree", "remove", "--force", busy.worktree.path);
    const gone = await d.json("POST", `/session/${busy.sessionId}/worktree-reset`, {});
    expect([gone.status, gone.body.code]).toEqual([409, "worktree_reset_invalid_state"]);
    expect((await d.json("GET", `/session/${busy.sessionId}/status`)).status).toBe(200);
  });
});

describe("restart", () => {
  test("the catalog keeps the worktree: the list shows it and a load brings the session back in its checkout", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    let created: Awaited<ReturnType<typeof worktreeSession>>;
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
      created = await worktreeSession(d, "survivor");
      await runTurn(d, created.sessionId, "@checkpoint-write a.txt before");
    }
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const listed = await d.json("GET", `/workspace/${workspaceId(ws.path)}/sessions`);
    const row = (listed.body.sessions as Record<string, unknown>[]).find((s) => s.sessionId === created.sessionId);
    expect(row).toMatchObject({ live: false, worktree: created.worktree, worktreeState: "persisted-v1", currentCwd: created.worktree.path });
    const loaded = await d.json("POST", `/session/${created.sessionId}/load`, {});
    expect(loaded.status).toBe(200);
    expect(loaded.body).toMatchObject({ worktree: created.worktree, worktreeState: "persisted-v1", currentCwd: created.worktree.path });
    expect(await lastCwd(d, "session/load")).toBe(created.worktree.path);
    await runTurn(d, created.sessionId, "@checkpoint-write a.txt after");
    expect(readFileSync(join(created.worktree.path, "a.txt"), "utf8")).toBe("after");
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("base\n");
  });

  test("a recorded worktree that is gone, swapped for a link, no longer a checkout, or a checkout of another repository or worktree is 409 worktree_missing on load, never a session elsewhere", async () => {
    await using ws = tempDir("w-ws-");
    await using outside = tempDir("w-out-");
    initRepo(ws.path, { "a.txt": "base\n" });
    const other = join(outside.path, "other");
    mkdirSync(other);
    initRepo(other, { "s.txt": "secret\n" });
    const slugs = ["gone", "linked", "plain", "swapped", "crossed", "kept"];
    const ids: Record<string, string> = {};
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
      for (const slug of slugs) {
        const created = await worktreeSession(d, slug);
        ids[slug] = created.sessionId;
        expect((await d.json("DELETE", `/session/${created.sessionId}`)).status).toBe(204);
      }
    }
    git(ws.path, "worktree", "remove", "--force", wtPath(ws.path, "gone"));
    // The checkout moved out of the workspace, a link left in its place: its `.git` file is still there.
    renameSync(wtPath(ws.path, "linked"), join(outside.path, "linked"));
    symlinkSync(join(outside.path, "linked"), wtPath(ws.path, "linked"));
    rmSync(wtPath(ws.path, "plain"), { recursive: true, force: true });
    mkdirSync(wtPath(ws.path, "plain"));
    // Folders whose `.git` file names an outside repository, or the admin folder of another session's checkout (review R15).
    // The outside repository's admin folder names the swapped folder back, as a linked worktree's would.
    const otherAdmin = join(other, ".git", "worktrees", "swapped");
    mkdirSync(otherAdmin, { recursive: true });
    writeFileSync(join(otherAdmin, "gitdir"), `${join(wtPath(ws.path, "swapped"), ".git")}\n`);
    writeFileSync(join(otherAdmin, "commondir"), "../..\n");
    writeFileSync(join(otherAdmin, "HEAD"), `${git(other, "rev-parse", "HEAD").trim()}\n`);
    for (const [slug, gitdir] of [["swapped", otherAdmin], ["crossed", join(ws.path, ".git", "worktrees", "kept")]] as const) {
      rmSync(wtPath(ws.path, slug), { recursive: true, force: true });
      mkdirSync(wtPath(ws.path, slug));
      writeFileSync(join(wtPath(ws.path, slug), ".git"), `gitdir: ${gitdir}\n`);
    }
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    expect((await d.json("POST", `/session/${ids.kept}/load`, {})).status).toBe(200);
    expect(await lastCwd(d, "session/load")).toBe(wtPath(ws.path, "kept"));
    for (const slug of ["gone", "linked", "plain", "swapped", "crossed"]) {
      const loaded = await d.json("POST", `/session/${ids[slug]}/load`, {});
      expect([slug, loaded.status, loaded.body.code]).toEqual([slug, 409, "worktree_missing"]);
    }
    expect((await d.sentToAgent("session/load")).length).toBe(1);
  });
});

describe("hostile input and failures", () => {
  test("hostile slugs (and names git refuses) are 400 and make nothing; a taken name (branch, branch under it, tag) is 409 worktree_exists", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    for (const slug of ["../escape", "a/b", "/abs", "-rf", "--orphan", ".hidden", "a..b", "x".repeat(65), "a\u0000b", "a\nb", "a b", "agent-1", "pr-12", "", "naïve", "x.lock"]) {
      const reply = await d.json("POST", "/session", { worktree: { slug } });
      expect([slug, reply.status, reply.body.code]).toEqual([slug, 400, "worktree_invalid_slug"]);
    }
    for (const worktree of [{ slug: 7 }, "x", [1], 3]) {
      const reply = await d.json("POST", "/session", { worktree });
      expect([reply.status, reply.body.code]).toEqual([400, "invalid_worktree"]);
    }
    expect(existsSync(join(ws.path, ".qwen", "worktrees")) ? readdirSync(join(ws.path, ".qwen", "worktrees")) : []).toEqual([]);
    expect(existsSync(join(ws.path, "..", "escape"))).toBe(false);
    await worktreeSession(d, "taken");
    const twice = await d.json("POST", "/session", { worktree: { slug: "taken" } });
    expect([twice.status, twice.body.code]).toEqual([409, "worktree_exists"]);
    // Racing creates of one name: one checkout, the other refused, and the refusal removes nothing.
    const raced = await Promise.all([1, 2, 3].map(() => d.json("POST", "/session", { worktree: { slug: "raced" } })));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const winner = raced.find((r) => r.status === 200)!.body;
    await runTurn(d, winner.sessionId, "@checkpoint-write a.txt won");
    expect(readFileSync(join(wtPath(ws.path, "raced"), "a.txt"), "utf8")).toBe("won");
    git(ws.path, "branch", "worktree-branch-only");
    const branchTaken = await d.json("POST", "/session", { worktree: { slug: "branch-only" } });
    expect([branchTaken.status, branchTaken.body.code]).toEqual([409, "worktree_exists"]);
    // Names git refuses as branches are 400 with git's own line; a branch under the name or a tag of it is 409 (review R15).
    for (const slug of ["a.", "end."]) {
      const reply = await d.json("POST", "/session", { worktree: { slug } });
      expect([slug, reply.status, reply.body.code]).toEqual([slug, 400, "worktree_invalid_slug"]);
      expect(reply.body.error).toContain(`fatal: 'worktree-${slug}' is not a valid branch name`);
    }
    git(ws.path, "branch", "worktree-nested/child");
    git(ws.path, "tag", "worktree-tagged");
    for (const [slug, ref] of [["nested", "refs/heads/worktree-nested/child"], ["tagged", "refs/tags/worktree-tagged"]]) {
      const reply = await d.json("POST", "/session", { worktree: { slug } });
      expect([slug, reply.status, reply.body.code]).toEqual([slug, 409, "worktree_exists"]);
      expect(reply.body.error).toContain(ref);
    }
    expect(readdirSync(join(ws.path, ".qwen", "worktrees")).sort()).toEqual(["raced", "taken"]);
    expect(git(ws.path, "branch", "--list", "worktree-*", "--format=%(refname:short)").trim().split("\n").sort()).toEqual(["worktree-branch-only", "worktree-nested/child", "worktree-raced", "worktree-taken"]);
    const both = await d.json("POST", "/session", { worktree: {}, branch: { name: "feat" } });
    expect([both.status, both.body.code]).toEqual([400, "branch_and_worktree_conflict"]);
  });

  test("a workspace outside git, or a repository without a commit, is 400 worktree_not_git_repo with no session and no folder", async () => {
    await using ws = tempDir("w-ws-");
    writeFileSync(join(ws.path, "a.txt"), "x");
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const reply = await d.json("POST", "/session", { worktree: { slug: "nope" } });
    expect([reply.status, reply.body.code]).toEqual([400, "worktree_not_git_repo"]);
    expect(existsSync(join(ws.path, ".qwen"))).toBe(false);
    expect(await d.sentToAgent("session/new")).toEqual([]);
    git(ws.path, "init", "-q", "-b", "main");
    const empty = await d.json("POST", "/session", { worktree: { slug: "nope" } });
    expect([empty.status, empty.body.code]).toEqual([400, "worktree_not_git_repo"]);
  });

  test("the repository's hooks and filters do not run, and a `.qwen` link out of the workspace is refused", async () => {
    await using ws = tempDir("w-ws-");
    await using outside = tempDir("w-out-");
    initRepo(ws.path, { "a.txt": "base\n", ".gitattributes": "*.txt filter=evil\n" });
    const marker = join(outside.path, "ran");
    const hook = join(ws.path, ".git", "hooks", "post-checkout");
    writeFileSync(hook, `#!/bin/sh\necho hook >> ${marker}\n`);
    chmodSync(hook, 0o755);
    git(ws.path, "config", "filter.evil.smudge", `sh -c 'echo smudge >> ${marker}; cat'`);
    git(ws.path, "config", "core.fsmonitor", `sh -c 'echo fsmonitor >> ${marker}'`);
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const created = await worktreeSession(d, "safe");
    expect(readFileSync(join(created.worktree.path, "a.txt"), "utf8")).toBe("base\n");
    expect(existsSync(marker)).toBe(false);

    await using other = tempDir("w-ws-");
    initRepo(other.path, { "a.txt": "base\n" });
    symlinkSync(outside.path, join(other.path, ".qwen"));
    await using d2 = await fakeAgentDaemon([], { workspace: other.path, env: ENV });
    const linked = await d2.json("POST", "/session", { worktree: { slug: "out" } });
    expect([linked.status, linked.body.code]).toEqual([409, "worktree_create_failed"]);
    expect(readdirSync(outside.path)).toEqual([]);
  });

  test("a workspace in a subfolder of a repository is 400 worktree_subfolder_unsupported: a checkout would hold the rest of the repository (review R15)", async () => {
    await using outer = tempDir("w-outer-");
    const proj = join(outer.path, "proj");
    mkdirSync(proj);
    mkdirSync(join(outer.path, "private"));
    initRepo(outer.path, { "proj/a.txt": "base\n", "private/secret.txt": "s\n" });
    await using d = await fakeAgentDaemon([], { workspace: proj, env: ENV });
    const reply = await d.json("POST", "/session", { worktree: { slug: "sub" } });
    expect([reply.status, reply.body.code]).toEqual([400, "worktree_subfolder_unsupported"]);
    expect(existsSync(join(proj, ".qwen", "worktrees", "sub"))).toBe(false);
    expect(git(outer.path, "branch", "--list", "worktree-sub").trim()).toBe("");
  });

  test.each([
    ["on the new branch", "onbranch:worktree-**"],
    ["in the new worktree's git folder", "gitdir:**/.git/worktrees/**"],
  ])("a filter the repository's configuration defines only %s does not run either (review R15)", async (_, condition) => {
    await using ws = tempDir("w-ws-");
    await using outside = tempDir("w-out-");
    initRepo(ws.path, { "a.txt": "base\n", ".gitattributes": "* filter=evil\n" });
    const marker = join(outside.path, "ran");
    const smudge = join(outside.path, "smudge.sh");
    writeFileSync(smudge, `#!/bin/sh\necho smudge >> ${marker}\nexec cat\n`, { mode: 0o755 });
    writeFileSync(join(ws.path, ".git", "evil.cfg"), `[filter "evil"]\n\tsmudge = ${smudge}\n`);
    git(ws.path, "config", `includeIf.${condition}.path`, "evil.cfg");
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const created = await worktreeSession(d, "cond");
    expect(readFileSync(join(created.worktree.path, "a.txt"), "utf8")).toBe("base\n");
    expect(git(created.worktree.path, "status", "--porcelain")).toBe("");
    expect(existsSync(marker)).toBe(false);
  });

  test("a workspace holds a bounded number of worktrees, and a session that fails to start removes its checkout and branch", async () => {
    await using ws = tempDir("w-ws-");
    initRepo(ws.path, { "a.txt": "base\n" });
    {
      await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { ...ENV, FAKE_AGENT_INIT_ERROR: "boom" } });
      const failed = await d.json("POST", "/session", { worktree: { slug: "failing" } });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(existsSync(wtPath(ws.path, "failing"))).toBe(false);
      expect(git(ws.path, "branch", "--list", "worktree-failing")).toBe("");
      expect(git(ws.path, "worktree", "list", "--porcelain")).not.toContain("failing");
    }
    for (let i = 0; i < 16; i++) mkdirSync(wtPath(ws.path, `filler-${i}`), { recursive: true });
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: ENV });
    const over = await d.json("POST", "/session", { worktree: { slug: "one-too-many" } });
    expect([over.status, over.body.code, over.body.limit]).toEqual([409, "worktree_limit_reached", 16]);
    expect(existsSync(wtPath(ws.path, "one-too-many"))).toBe(false);
  });
});
