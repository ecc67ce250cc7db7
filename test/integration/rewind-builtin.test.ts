/**
 * Checkpoints and rewind with the built-in agent, end to end over HTTP + SSE against the mock
 * model: a turn's edit-tool writes and a shell command's change to a tracked file are snapshotted,
 * listed, and put back with the conversation; a file changed outside the session since blocks the
 * rewind without `force`; a link swapped in never redirects a restore; a file over the snapshot
 * bound is reported, not kept.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { initRepo } from "../helpers/git-repo.ts";
import { jsonRequest, type JsonReply } from "../helpers/json-request.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";

const TOKEN = "p-rewind-test-token-0123456789";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

interface Setup extends AsyncDisposable {
  readonly d: TestDaemon;
  readonly model: MockModel;
  readonly ws: string;
  readonly outside: string;
  readonly sessionId: string;
  readonly events: SseClient;
  req(method: string, path: string, body?: unknown): Promise<JsonReply>;
  /** Prompts and waits for the turn's end; returns its prompt id. */
  turn(text: string): Promise<string>;
}

async function setup(options: { files?: Record<string, string>; git?: boolean; args?: string[] } = {}): Promise<Setup> {
  const model = startMockModel();
  const home = tempDir("p-rewind-home-");
  const ws = tempDir("p-rewind-ws-");
  const outside = tempDir("p-rewind-outside-");
  // No automatic title: its model request would take a scripted reply.
  writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
  const files = options.files ?? {};
  if (options.git === false) for (const [name, text] of Object.entries(files)) writeFileSync(join(ws.path, name), text);
  else initRepo(ws.path, files);
  const env = { PATH: process.env.PATH, SVC_HOME: home.path, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model", SVC_SERVER_TOKEN: TOKEN };
  const d = await startDaemon(["--approval-mode", "yolo", "--trust-workspace", ...(options.args ?? [])], { workspace: ws.path, env });
  const req = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);
  const created = await req("POST", "/session", {});
  if (created.status !== 200) throw new Error(`POST /session answered ${created.status}: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.sessionId as string;
  const events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0", ...AUTH } });
  const dirs: TempDir[] = [ws, outside, home];
  return {
    d,
    model,
    ws: ws.path,
    outside: outside.path,
    sessionId,
    events,
    req,
    async turn(text) {
      const reply = await req("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
      if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      const promptId = reply.body.promptId as string;
      const end = await events.waitFor("turn_complete", (f) => f.data.promptId === promptId, 20_000);
      expect(end.data.stopReason).toBe("end_turn");
      return promptId;
    },
    async [Symbol.asyncDispose]() {
      events.close();
      try {
        await d[Symbol.asyncDispose]();
      } finally {
        await model[Symbol.asyncDispose]();
        for (const dir of dirs) await dir[Symbol.asyncDispose]();
      }
    },
  };
}

const read = (ws: string, name: string) => readFileSync(join(ws, name), "utf8");
/** The user messages' text the model was sent in its last request. */
function lastUserTexts(model: MockModel): string[] {
  const body = model.requests.at(-1) as { messages: { role: string; content: unknown }[] };
  return body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe("rewind with the built-in agent", () => {
  test("a turn edits three files and a shell command edits a fourth: rewind restores all four (the fourth when forced) and the conversation", async () => {
    await using s = await setup({ files: { "a.txt": "alpha\n", "b.txt": "beta\n", "d.txt": "delta\n" } });
    s.model.enqueue({ kind: "text", text: "hello back" });
    const first = await s.turn("first prompt");
    s.model.enqueue(
      { kind: "tools", calls: [{ name: "edit", args: { file_path: "a.txt", old_string: "alpha", new_string: "ALPHA" } }] },
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "b.txt", content: "BETA\n" } }] },
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "c.txt", content: "new file\n" } }] },
      { kind: "tools", calls: [{ name: "run_shell_command", args: { command: "printf 'DELTA\\n' > d.txt" } }] },
      { kind: "text", text: "all done" },
    );
    const second = await s.turn("second prompt: change things");
    expect([read(s.ws, "a.txt"), read(s.ws, "b.txt"), read(s.ws, "c.txt"), read(s.ws, "d.txt")]).toEqual(["ALPHA\n", "BETA\n", "new file\n", "DELTA\n"]);

    const listed = await s.req("GET", `/session/${s.sessionId}/rewind/snapshots`);
    expect(listed.status).toBe(200);
    expect(listed.body.snapshots.map((t: { promptId: string; turnIndex: number }) => [t.promptId, t.turnIndex])).toEqual([
      [first, 0],
      [second, 1],
    ]);
    expect(listed.body.snapshots[0].files).toEqual([]);
    const files = [...listed.body.snapshots[1].files].sort((x: { path: string }, y: { path: string }) => x.path.localeCompare(y.path));
    expect(files).toEqual([
      { path: "a.txt", change: "modified", source: "tool", restorable: true },
      { path: "b.txt", change: "modified", source: "tool", restorable: true },
      { path: "c.txt", change: "created", source: "tool", restorable: true },
      { path: "d.txt", change: "modified", source: "shell", restorable: true },
    ]);
    expect(listed.body.snapshots[1].diffStats).toEqual({ filesChanged: 4 });

    // The shell command's change is one svc cannot tell from anybody else's: put back only when forced.
    const unattributed = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId: second });
    expect(unattributed.status).toBe(409);
    expect(unattributed.body).toMatchObject({ code: "rewind_conflict", files: ["d.txt"] });
    const rewound = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId: second, force: true });
    expect(rewound.status).toBe(200);
    expect(rewound.body).toMatchObject({ rewound: true, promptId: second, targetTurnIndex: 1, filesFailed: [], conversationRewound: true });
    expect([...rewound.body.filesChanged].sort()).toEqual(["a.txt", "b.txt", "c.txt", "d.txt"]);
    expect([read(s.ws, "a.txt"), read(s.ws, "b.txt"), read(s.ws, "d.txt")]).toEqual(["alpha\n", "beta\n", "delta\n"]);
    expect(existsSync(join(s.ws, "c.txt"))).toBe(false);
    const event = await s.events.waitFor("session_rewound", undefined, 5000);
    expect(event.data).toMatchObject({ sessionId: s.sessionId, promptId: second, conversationRewound: true });

    // The conversation: the next request to the model holds the first prompt, not the rewound one.
    s.model.enqueue({ kind: "text", text: "fresh" });
    await s.turn("third prompt");
    const users = lastUserTexts(s.model);
    expect(users.some((u) => u.includes("first prompt"))).toBe(true);
    expect(users.some((u) => u.includes("second prompt"))).toBe(false);
    expect(users.some((u) => u.includes("third prompt"))).toBe(true);
    const after = await s.req("GET", `/session/${s.sessionId}/rewind/snapshots`);
    expect(after.body.snapshots.map((t: { turnIndex: number }) => t.turnIndex)).toEqual([0, 1]);
    expect(after.body.snapshots[1].promptId).not.toBe(second);
  });

  test("a file changed outside the session since blocks the rewind (409 naming it) until force", async () => {
    await using s = await setup({ files: { "a.txt": "alpha\n", "b.txt": "beta\n" } });
    s.model.enqueue(
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "a.txt", content: "one\n" } }, { name: "write_file", args: { file_path: "b.txt", content: "two\n" } }] },
      { kind: "text", text: "done" },
    );
    const promptId = await s.turn("write both");
    writeFileSync(join(s.ws, "a.txt"), "edited by hand\n");
    const refused = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId, rewindConversation: false });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "rewind_conflict", files: ["a.txt"] });
    expect([read(s.ws, "a.txt"), read(s.ws, "b.txt")]).toEqual(["edited by hand\n", "two\n"]);
    const forced = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId, rewindConversation: false, force: true });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ rewound: true, conversationRewound: false, filesFailed: [] });
    expect([read(s.ws, "a.txt"), read(s.ws, "b.txt")]).toEqual(["alpha\n", "beta\n"]);
  });

  test("a link swapped in for a file or its folder is never written through; what cannot be restored is listed", async () => {
    await using s = await setup({ files: { "a.txt": "alpha\n" } });
    mkdirSync(join(s.ws, "sub"));
    writeFileSync(join(s.ws, "sub", "e.txt"), "echo\n");
    s.model.enqueue(
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "a.txt", content: "one\n" } }, { name: "write_file", args: { file_path: "sub/e.txt", content: "two\n" } }] },
      { kind: "text", text: "done" },
    );
    const promptId = await s.turn("write both");
    // a.txt becomes a link to a file outside; sub/ becomes a link to a folder outside holding an e.txt.
    writeFileSync(join(s.outside, "victim.txt"), "outside\n");
    renameSync(join(s.ws, "a.txt"), join(s.ws, "a.moved"));
    symlinkSync(join(s.outside, "victim.txt"), join(s.ws, "a.txt"));
    mkdirSync(join(s.outside, "dir"));
    writeFileSync(join(s.outside, "dir", "e.txt"), "outside e\n");
    renameSync(join(s.ws, "sub"), join(s.ws, "sub.moved"));
    symlinkSync(join(s.outside, "dir"), join(s.ws, "sub"));

    const refused = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId, rewindConversation: false });
    expect(refused.status).toBe(409);
    expect([...refused.body.files].sort()).toEqual(["a.txt", "sub/e.txt"]);
    const forced = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId, rewindConversation: false, force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.rewound).toBe(false);
    expect([...forced.body.filesFailed].sort()).toEqual(["a.txt", "sub/e.txt"]);
    expect(read(s.outside, "victim.txt")).toBe("outside\n");
    expect(read(s.outside, "dir/e.txt")).toBe("outside e\n");
    expect(lstatSync(join(s.ws, "a.txt")).isSymbolicLink()).toBe(true);
  });

  test("a file over the snapshot bound is listed as not restorable and reported on rewind, never read whole", async () => {
    const big = "x".repeat(40 * 1024);
    await using s = await setup({ files: { "big.txt": big, "small.txt": "small\n" }, args: ["--max-snapshot-bytes", "16384"] });
    s.model.enqueue(
      { kind: "tools", calls: [{ name: "write_file", args: { file_path: "big.txt", content: "tiny now\n" } }, { name: "write_file", args: { file_path: "small.txt", content: "SMALL\n" } }] },
      { kind: "text", text: "done" },
    );
    const promptId = await s.turn("shrink it");
    const listed = await s.req("GET", `/session/${s.sessionId}/rewind/snapshots`);
    const files = [...listed.body.snapshots[0].files].sort((x: { path: string }, y: { path: string }) => x.path.localeCompare(y.path));
    expect(files).toEqual([
      { path: "big.txt", change: "modified", source: "tool", restorable: false, reason: "too_large" },
      { path: "small.txt", change: "modified", source: "tool", restorable: true },
    ]);
    const rewound = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId, rewindConversation: false });
    expect(rewound.status).toBe(200);
    expect(rewound.body).toMatchObject({ rewound: false, filesChanged: ["small.txt"], filesFailed: ["big.txt"] });
    expect(read(s.ws, "big.txt")).toBe("tiny now\n");
    expect(read(s.ws, "small.txt")).toBe("small\n");
    const status = await s.req("GET", "/daemon/status");
    expect(status.body.runtime.checkpoints.maxBytes).toBe(16384);
    expect(status.body.runtime.checkpoints.bytes).toBeLessThanOrEqual(16384);
  });

  test("an unknown prompt id is 400 invalid_rewind_target; a malformed body is 400", async () => {
    await using s = await setup({ files: { "a.txt": "alpha\n" } });
    const unknown = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId: "no-such-prompt" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("invalid_rewind_target");
    const malformed = await s.req("POST", `/session/${s.sessionId}/rewind`, { promptId: "x", force: "yes" });
    expect(malformed.status).toBe(400);
  });
});
