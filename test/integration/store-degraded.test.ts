/**
 * Recording that cannot work never stops a live session: with a data dir that cannot hold svc.db
 * the daemon boots, the turn runs to its end, the session hears `session_recording_degraded`, and
 * `/daemon/status` carries a `recording_degraded` issue.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

describe("recording degraded", () => {
  test("an unwritable data dir keeps the live turn going and reports the degradation", async () => {
    await using home = tempDir("svc-home-");
    // svc.db is a directory: the database cannot be opened, whoever runs the test (root included).
    mkdirSync(join(home.path, "svc.db"));
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });

    // The database is opened on first use: until then nothing is known to be wrong.
    expect((await d.json("GET", "/daemon/status")).body.issues).not.toContainEqual(expect.objectContaining({ code: "recording_degraded" }));
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const status = await d.json("GET", "/daemon/status");
    expect(status.status).toBe(200);
    // Nothing is recorded, and no history can be read: the list says so instead of answering empty.
    expect(status.body.status).toBe("error");
    expect(status.body.issues).toContainEqual(expect.objectContaining({ code: "recording_degraded", severity: "warning" }));
    expect(status.body.issues).toContainEqual(expect.objectContaining({ code: "store_unavailable", severity: "error" }));
    const list = await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions`);
    expect(list.status).toBe(503);
    expect(list.body).toMatchObject({ code: "store_unavailable", reason: "unreadable", retryable: false });
    expect(list.headers.get("retry-after")).toBeNull();

    await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
    const degraded = await events.waitFor("session_recording_degraded");
    expect(degraded.id).toBeDefined();
    expect(degraded.data).toMatchObject({ sessionId, reason: "unavailable" });

    const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say still here" }] });
    expect(prompt.status).toBe(202);
    const done = await events.waitFor("turn_complete", (f) => f.data.promptId === prompt.body.promptId);
    expect(done.data.stopReason).toBe("end_turn");
    expect(events.frames.some((f) => f.event === "session_update" && JSON.stringify(f.data).includes("still here"))).toBe(true);
  });
});

describe("recording fails mid-session", () => {
  test("a write that cannot get the database (another process holds its lock) degrades recording; the turn goes on and is told", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    await using events = await d.events(sessionId, { "Last-Event-ID": "0" });
    const first = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say recorded" }] });
    await events.waitFor("turn_complete", (f) => f.data.promptId === first.body.promptId);

    // Another connection takes the write lock and keeps it past the daemon's busy timeout.
    const blocker = new Database(join(home.path, "svc.db"));
    // The daemon may be committing this very moment: wait for the lock rather than fail the test.
    blocker.run("PRAGMA busy_timeout = 10000");
    blocker.run("BEGIN EXCLUSIVE");
    try {
      const second = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@say not recorded" }] });
      expect(second.status).toBe(202);
      // Either may come first: the degradation is told right after the batch that failed.
      const degraded = await until(() => events.frames.find((f) => f.event === "session_recording_degraded"), 15_000, "the degradation event");
      expect(degraded.data).toMatchObject({ sessionId, reason: "write_failed" });
      const done = await until(() => events.frames.find((f) => f.event === "turn_complete" && f.data.promptId === second.body.promptId), 15_000, "the turn's end");
      expect(done.data.stopReason).toBe("end_turn");
    } finally {
      blocker.run("ROLLBACK");
      blocker.close();
    }
    const status = await d.json("GET", "/daemon/status");
    expect(status.body.issues).toContainEqual(expect.objectContaining({ code: "recording_degraded", severity: "warning" }));
    // What was recorded before stays readable.
    const transcript = await d.json("GET", `/session/${sessionId}/transcript`);
    expect(transcript.status).toBe(200);
    expect(JSON.stringify(transcript.body.events)).toContain("recorded");
  }, 30_000);
});
