/**
 * Crash safety of the journal, against a real `svc serve` child with the fake agent: whatever a
 * subscriber received before the daemon was SIGKILLed is in svc.db afterwards, byte for byte, and
 * the session is still in the catalog.
 */
import { describe, expect, test } from "bun:test";
import { Store } from "../../src/store/store.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { spawnDaemon } from "../helpers/daemon.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** A store on `dataDir`, opened now (a store opens on first use). */
function openedStore(dataDir: string): Store {
  const store = new Store(dataDir);
  store.sessions("/", false, 1, null);
  return store;
}

async function startSvc(home: string, workspace: string) {
  return await spawnDaemon(["--port", "0", "--workspace", workspace, "--log-level", "debug"], {
    cwd: workspace,
    env: { SVC_HOME: home, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY },
  });
}

describe("journal crash safety", () => {
  test("after kill -9 mid-stream, the journal holds every event a subscriber received, and the catalog the session", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    await using daemon = await startSvc(home.path, ws.path);
    const created = await daemon.fetch("/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sessionScope: "thread" }) });
    expect(created.status).toBe(200);
    const { sessionId } = (await created.json()) as { sessionId: string };
    // Not `await using`: the kill resets the stream, which the client reports as a failure on dispose.
    const sse = await openSse(`${daemon.url}/session/${encodeURIComponent(sessionId)}/events`);
    const prompt = await daemon.fetch(`/session/${encodeURIComponent(sessionId)}/prompt`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: [{ type: "text", text: "@stream 400 5" }] }),
    });
    expect(prompt.status).toBe(202);
    await until(() => sse.frames.filter((f) => f.id !== undefined).length >= 40, 10_000, "40 events on the stream");

    daemon.proc.kill("SIGKILL");
    await daemon.proc.exited;
    await until(() => sse.ended, 5000, "the stream to end");
    await Promise.resolve(sse[Symbol.asyncDispose]()).catch(() => {});
    const seen = sse.frames.filter((f) => f.id !== undefined);
    expect(seen.length).toBeGreaterThanOrEqual(40);
    // The stream was cut mid-turn: the kill came before the end of the turn.
    expect(seen.some((f) => f.event === "turn_complete")).toBe(false);

    const store = openedStore(home.path);
    try {
      expect(store.degraded).toBeNull();
      expect(store.session(sessionId)).toMatchObject({ id: sessionId, workspace: ws.path, state: "live" });
      const journal = store.journal(sessionId, 0, 10_000);
      const byId = new Map(journal.map((r) => [r.eventId, r]));
      for (const frame of seen) {
        const record = byId.get(frame.id!);
        expect(record, `event ${frame.id} was delivered but not journaled`).toBeDefined();
        expect(JSON.parse(record!.envelope).type).toBe(frame.event);
        expect(JSON.parse(record!.envelope)).toEqual(frame.envelope);
      }
      // One epoch, ids from 1 without a gap.
      expect(new Set(journal.map((r) => r.epoch)).size).toBe(1);
      expect(journal.map((r) => r.eventId)).toEqual(journal.map((_, i) => i + 1));
    } finally {
      store.close();
    }
  }, 30_000);

  test("SIGTERM ends live sessions cleanly: their terminal event is journaled and they are marked restorable", async () => {
    await using home = tempDir("svc-home-");
    await using ws = tempDir("svc-ws-");
    await using daemon = await startSvc(home.path, ws.path);
    const created = await daemon.fetch("/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sessionScope: "thread" }) });
    const { sessionId } = (await created.json()) as { sessionId: string };
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);

    const store = openedStore(home.path);
    try {
      expect(store.session(sessionId)).toMatchObject({ state: "restorable" });
      const journal = store.journal(sessionId, 0, 1000);
      expect(JSON.parse(journal.at(-1)!.envelope)).toMatchObject({ type: "session_died", data: { sessionId, reason: "daemon_shutdown" } });
    } finally {
      store.close();
    }
  }, 30_000);
});
