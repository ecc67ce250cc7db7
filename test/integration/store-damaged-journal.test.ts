/**
 * A journal row damaged outside svc (a tool writing into svc.db, a failing disk): the session's
 * history answers 500 `journal_damaged` naming the row, on every route that reads it, export
 * included (its first page is read before the stream starts); other sessions and the daemon go on.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { closedSession } from "../helpers/session-turns.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("a damaged journal row", () => {
  test("transcript, export and load answer 500 journal_damaged; another session's history still reads", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const damaged = await closedSession(d, "@stream 200");
    const intact = await closedSession(d, "@stream 200");

    // Another connection overwrites the damaged session's first row with bytes that are no chunk.
    const db = new Database(join(home.path, "svc.db"));
    db.run("PRAGMA busy_timeout = 5000");
    const changed = db
      .query("UPDATE journal SET body = randomblob(64) WHERE seq = (SELECT MIN(seq) FROM journal WHERE session = (SELECT key FROM journal_sessions WHERE id = ?1))")
      .run(damaged).changes;
    db.close();
    expect(changed).toBe(1);

    for (const [method, path] of [
      ["GET", `/session/${damaged}/transcript`],
      ["GET", `/session/${damaged}/export?format=jsonl`],
      ["GET", `/session/${damaged}/export`],
      ["POST", `/session/${damaged}/load`],
    ] as const) {
      const reply = await d.json(method, path, method === "POST" ? {} : undefined);
      expect({ path, status: reply.status }).toEqual({ path, status: 500 });
      expect(reply.body).toMatchObject({ code: "journal_damaged", sessionId: damaged });
      expect(reply.body.hint).toContain("damaged");
    }
    const page = await d.json("GET", `/session/${intact}/transcript?limit=500`);
    expect(page.status).toBe(200);
    expect(page.body.events.length).toBeGreaterThan(200);
    expect((await d.fetch(`/session/${intact}/export?format=jsonl`)).status).toBe(200);
    expect((await d.json("GET", "/health")).status).toBe(200);
  }, 60_000);
});
