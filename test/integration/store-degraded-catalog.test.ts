/**
 * Catalog changes while recording is degraded for the daemon's life (svc.db cannot be opened): no
 * route answers as if it stored what it did not. A rename of a live session holds for the live
 * session and says `persisted: false`; the bulk archive, unarchive and delete of persisted sessions
 * answer 503 `store_unavailable` with a hint, not a 200 that claims a result. While recording
 * works the rename answer carries no such flag.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("catalog changes while recording is degraded for good", () => {
  test("a live rename says it was not persisted; bulk changes of persisted sessions answer 503", async () => {
    await using home = tempDir("svc-home-");
    // svc.db is a directory: the database cannot be opened, whoever runs the test (root included).
    mkdirSync(join(home.path, "svc.db"));
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({ sessionScope: "thread" });

    const renamed = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "kept live only" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ sessionId, displayName: "kept live only", persisted: false });

    for (const action of ["archive", "unarchive", "delete"]) {
      const reply = await d.json("POST", `/sessions/${action}`, { sessionIds: ["a-persisted-session"] });
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ code: "store_unavailable", reason: "unreadable" });
      expect(typeof reply.body.hint).toBe("string");
    }
  });

  test("while recording works a rename claims nothing extra", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const renamed = await d.json("PATCH", `/session/${sessionId}/metadata`, { displayName: "stored" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ sessionId, displayName: "stored" });
  });
});
