/**
 * Checkpoint storage and rewind with a third-party agent (the fake agent, generic profile), which
 * asks `svc/checkpoint/before_write` before it writes (`@checkpoint-write`): the snapshot storage
 * stays under `--max-snapshot-bytes` over 1000 turns, evicting the oldest turns and saying so in
 * `/daemon/status`; its files are owner-only; an agent that cannot cut its conversation gets 501
 * for that part, and the files alone can still be rewound.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "p-rewind-storage-token-0123456789";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const BOUND = 16 * 1024;

async function turn(d: FakeAgentDaemon, events: SseClient, sessionId: string, text: string): Promise<string> {
  const reply = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] }, AUTH);
  if (reply.status !== 202) throw new Error(`prompt answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const promptId = reply.body.promptId as string;
  await events.waitFor("turn_complete", (f) => f.data.promptId === promptId, 10_000);
  return promptId;
}

describe("checkpoint storage", () => {
  test("stays under its bound over 1000 turns, evicting the oldest turns, owner-only on disk", async () => {
    await using ws = tempDir("p-rewind-ws-");
    // A data dir of its own: the test process's shared one holds other suites' checkpoint folders.
    await using home = tempDir("p-rewind-home-");
    await using d = await fakeAgentDaemon(["--max-snapshot-bytes", String(BOUND)], { workspace: ws.path, env: { SVC_SERVER_TOKEN: TOKEN, SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({}, AUTH);
    await using events = await d.events(sessionId, AUTH);
    const started = performance.now();
    let maxSeen = 0;
    const promptIds: string[] = [];
    for (let i = 0; i < 1000; i++) {
      // Five files in turn, each write a new ~1 KiB content: every turn keeps one ~1 KiB blob.
      promptIds.push(await turn(d, events, sessionId, `@checkpoint-write f${i % 5}.txt ${String(i).padStart(4, "0").repeat(256)}`));
      if (i % 50 === 49) {
        const status = await d.json("GET", "/daemon/status", undefined, AUTH);
        maxSeen = Math.max(maxSeen, status.body.runtime.checkpoints.bytes);
      }
    }
    const elapsedMs = performance.now() - started;
    const status = await d.json("GET", "/daemon/status", undefined, AUTH);
    const cp = status.body.runtime.checkpoints;
    console.log(`1000 turns in ${Math.round(elapsedMs)} ms; checkpoints ${JSON.stringify(cp)}; max bytes seen ${maxSeen}`);
    expect(cp.maxBytes).toBe(BOUND);
    expect(cp.bytes).toBeLessThanOrEqual(BOUND);
    expect(maxSeen).toBeLessThanOrEqual(BOUND);
    expect(cp.evictions).toBeGreaterThan(900);
    expect(cp.count).toBeGreaterThan(0);

    // On disk: the bytes the status counts, in owner-only files and folders.
    const parent = join(home.path, "checkpoints");
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    const mine = readdirSync(parent).map((name) => join(parent, name)).filter((dir) => readdirSync(dir).length > 0);
    expect(mine).toHaveLength(1);
    expect(statSync(mine[0]!).mode & 0o777).toBe(0o700);
    const blobs = readdirSync(mine[0]!);
    expect(blobs).toHaveLength(cp.count);
    let onDisk = 0;
    for (const blob of blobs) {
      const st = statSync(join(mine[0]!, blob));
      expect(st.mode & 0o777).toBe(0o600);
      onDisk += st.size;
    }
    expect(onDisk).toBe(cp.bytes);

    // The oldest turns are gone from the list; the newest can still be rewound (files only: a generic agent has no conversation rewind).
    const listed = await d.json("GET", `/session/${sessionId}/rewind/snapshots`, undefined, AUTH);
    const turns = listed.body.snapshots as { promptId: string; turnIndex: number }[];
    expect(turns.length).toBeLessThan(100);
    expect(turns.at(-1)!.promptId).toBe(promptIds.at(-1)!);
    expect(turns.at(-1)!.turnIndex).toBe(999);
    const evicted = await d.json("POST", `/session/${sessionId}/rewind`, { promptId: promptIds[0], rewindConversation: false }, AUTH);
    expect(evicted.status).toBe(400);
    expect(evicted.body.code).toBe("invalid_rewind_target");

    const both = await d.json("POST", `/session/${sessionId}/rewind`, { promptId: promptIds.at(-1) }, AUTH);
    expect(both.status).toBe(501);
    expect(both.body.code).toBe("agent_control_unsupported");
    expect(readFileSync(join(ws.path, "f4.txt"), "utf8")).toBe("0999".repeat(256));
    const files = await d.json("POST", `/session/${sessionId}/rewind`, { promptId: promptIds.at(-1), rewindConversation: false }, AUTH);
    expect(files.status).toBe(200);
    expect(files.body).toMatchObject({ rewound: true, filesChanged: ["f4.txt"], conversationRewound: false, targetTurnIndex: 999 });
    expect(readFileSync(join(ws.path, "f4.txt"), "utf8")).toBe("0994".repeat(256));
  }, 120_000);

  test("a rewind while a prompt runs is 409 session_busy", async () => {
    await using ws = tempDir("p-rewind-ws-");
    await using d = await fakeAgentDaemon([], { workspace: ws.path, env: { SVC_SERVER_TOKEN: TOKEN } });
    const { sessionId } = await d.createSession({}, AUTH);
    await using events = await d.events(sessionId, AUTH);
    const first = await turn(d, events, sessionId, "@checkpoint-write a.txt one");
    const running = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@hang" }] }, AUTH);
    expect(running.status).toBe(202);
    const busy = await d.json("POST", `/session/${sessionId}/rewind`, { promptId: first, rewindConversation: false }, AUTH);
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe("session_busy");
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("one");
    expect((await d.json("POST", `/session/${sessionId}/cancel`, {}, AUTH)).status).toBe(204);
    await events.waitFor("turn_complete", (f) => f.data.promptId === running.body.promptId, 10_000);
  });

  test("the rewind is a strict route: without a configured token it is 401 token_required", async () => {
    await using ws = tempDir("p-rewind-ws-");
    await using d = await fakeAgentDaemon([], { workspace: ws.path });
    const { sessionId } = await d.createSession();
    await using events = await d.events(sessionId);
    const promptId = await turn(d, events, sessionId, "@checkpoint-write a.txt one");
    const refused = await d.json("POST", `/session/${sessionId}/rewind`, { promptId, rewindConversation: false });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("token_required");
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("one");
    expect((await d.json("GET", `/session/${sessionId}/rewind/snapshots`)).body.snapshots[0].files).toEqual([{ path: "a.txt", change: "created", source: "tool", restorable: true }]);
  });
});
