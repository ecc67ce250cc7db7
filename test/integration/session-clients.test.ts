/**
 * Client ids over HTTP: an id lives as long as its client is active (prompts, votes, heartbeats and
 * attaches refresh it; it expires after `--session-idle-timeout-ms` without them; its own pending
 * prompt or its open event stream pins it), attaches past the cap push out the least recently
 * active client that is not pinned (refused only when every one is), and a consensus electorate is
 * the set of clients that have acted and can still vote.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { agentChunks, openSession, untilTurnEnds, type TestSession } from "../helpers/prompt-session.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { until } from "../helpers/until.ts";
import { MAX_CLIENTS_PER_SESSION } from "../../src/sessions/client-ids.ts";

const proceedOnce = { outcome: "selected", optionId: "proceed_once" };

async function askPermission(s: TestSession, sse: SseClient, clientId: string): Promise<{ promptId: string; requestId: string }> {
  const admitted = await s.prompt("@permission", { clientId });
  expect(admitted.status).toBe(202);
  const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === admitted.body.promptId);
  return { promptId: admitted.body.promptId, requestId: request.data.requestId };
}

const heartbeat = (s: TestSession, clientId: string) => s.daemon.json("POST", `/session/${s.id}/heartbeat`, {}, { "X-Svc-Client-Id": clientId });
const clientCount = async (s: TestSession) => (await s.daemon.json("GET", `/session/${s.id}/status`)).body.clientCount as number;

describe("header-less attaches (designated policy)", () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon([], { settings: { policy: { permissionStrategy: "designated" } } });
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test(`the prompting client keeps its id through ${MAX_CLIENTS_PER_SESSION + 44} header-less attaches, during its turn and after`, async () => {
    await using s = await openSession(d, "single");
    const bystander = await s.addClient(); // never sends its id back
    // The prompting client watches the session with its id, as a UI does: that pins the id.
    await using sse = await s.events({ "X-Svc-Client-Id": s.clientId });
    const { promptId, requestId } = await askPermission(s, sse, s.clientId);

    const attachMany = async () => {
      for (let i = 0; i < MAX_CLIENTS_PER_SESSION + 44; i++) expect((await d.createSession()).sessionId).toBe(s.id);
    };
    await attachMany();
    const vote = await s.vote(requestId, proceedOnce, { clientId: s.clientId });
    expect(vote.status).toBe(200);
    expect(agentChunks(await untilTurnEnds(sse, promptId))).toEqual(["permission: selected proceed_once"]);

    // Its prompt is over; its open event stream keeps the id.
    await attachMany();
    const beat = await heartbeat(s, s.clientId);
    expect(beat.status).toBe(200);
    expect(beat.body.clientId).toBe(s.clientId);
    const next = await s.prompt("@say again", { clientId: s.clientId });
    expect(next.status).toBe(202);
    await untilTurnEnds(sse, next.body.promptId);
    expect(await clientCount(s)).toBeLessThanOrEqual(MAX_CLIENTS_PER_SESSION);

    // An id that was never used made room.
    const stale = await heartbeat(s, bystander);
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ code: "invalid_client_id", clientId: bystander });
  });
});

describe("consensus electorate (quorum 3, client ids expire after 1.5 s idle)", () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon(["--session-idle-timeout-ms", "1500", "--session-reap-interval-ms", "100"], {
      settings: { policy: { permissionStrategy: "consensus", consensusQuorum: 3 } },
    });
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test("a voter who goes away stops counting: the two votes cast then carry the request", async () => {
    await using s = await openSession(d, "single");
    const [a, b, idle] = [s.clientId, await s.addClient(), await s.addClient()];
    for (const acting of [b, idle]) expect((await heartbeat(s, acting)).status).toBe(200); // acting clients: the electorate
    // idle: in the electorate at issue, never votes, goes idle.
    await using sse = await s.events(); // a subscriber: the session itself is never idle-reaped
    const { promptId, requestId } = await askPermission(s, sse, a);

    expect((await s.vote(requestId, proceedOnce, { clientId: a })).status).toBe(200);
    expect((await s.vote(requestId, proceedOnce, { clientId: b })).status).toBe(200);
    expect((await sse.waitFor("permission_partial_vote", (f) => f.data.votesReceived === 2)).data).toMatchObject({ quorum: 3, votesNeeded: 1 });

    const resolved = await sse.waitFor("permission_resolved", undefined, 10_000);
    expect(resolved.data).toEqual({ requestId, sessionId: s.id, outcome: proceedOnce });
    expect(agentChunks(await untilTurnEnds(sse, promptId))).toEqual(["permission: selected proceed_once"]);
  });

  test("an event stream opened with a client's id keeps that id alive until the stream closes", async () => {
    await using s = await openSession(d, "single");
    const [a, watcher] = [s.clientId, await s.addClient()];
    await s.addClient(); // never acts
    const stream = await s.events({ "X-Svc-Client-Id": watcher });
    await until(
      async () => {
        expect((await heartbeat(s, a)).status).toBe(200);
        return (await clientCount(s)) === 2;
      },
      10_000,
      "the idle client to expire",
    );
    // The watcher never called anything but the stream, longer than an id's idle lifetime.
    expect((await heartbeat(s, watcher)).status).toBe(200);

    await stream[Symbol.asyncDispose]();
    await until(
      async () => {
        expect((await heartbeat(s, a)).status).toBe(200);
        return (await clientCount(s)) === 1;
      },
      10_000,
      "the watcher's id to expire once its stream closed",
    );
    expect((await heartbeat(s, watcher)).status).toBe(400);
  });

  test("a client gone before the request is issued is not in its electorate; heartbeats keep the others", async () => {
    await using s = await openSession(d, "single");
    const a = s.clientId;
    expect((await heartbeat(s, await s.addClient())).status).toBe(200); // acts once, then goes idle
    await using sse = await s.events();
    await until(
      async () => {
        expect((await heartbeat(s, a)).status).toBe(200);
        return (await clientCount(s)) === 1;
      },
      10_000,
      "the idle client to expire",
    );

    // The quorum of 3 is capped to the one client that can vote.
    const { promptId, requestId } = await askPermission(s, sse, a);
    expect((await s.vote(requestId, proceedOnce, { clientId: a })).status).toBe(200);
    const turn = await untilTurnEnds(sse, promptId);
    expect(turn[0]!.data).toEqual({ requestId, sessionId: s.id, outcome: proceedOnce, voterClientId: a });
    expect(sse.frames.some((f) => f.event === "permission_partial_vote")).toBe(false);
  });
});

describe("consensus electorate (majority quorum)", () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon([], { settings: { policy: { permissionStrategy: "consensus" } } });
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test("attaches that never act do not count towards the quorum until they vote", async () => {
    await using s = await openSession(d, "single");
    const [a, dee] = [s.clientId, await s.addClient()];
    expect((await heartbeat(s, dee)).status).toBe(200);
    const silent = [await s.addClient(), await s.addClient(), await s.addClient()];
    await using sse = await s.events();
    const { promptId, requestId } = await askPermission(s, sse, a);

    // Five registered, two acting: the quorum is floor(2/2)+1, not floor(5/2)+1.
    expect((await s.vote(requestId, proceedOnce, { clientId: a })).status).toBe(200);
    expect((await sse.waitFor("permission_partial_vote")).data).toMatchObject({ votesReceived: 1, votesNeeded: 1, quorum: 2 });
    // A silent client registered at issue is still a voter (protocol-notes §10); its vote makes it count.
    expect((await s.vote(requestId, proceedOnce, { clientId: silent[0]! })).status).toBe(200);
    const turn = await untilTurnEnds(sse, promptId);
    expect(turn.find((f) => f.event === "permission_resolved")!.data).toEqual({ requestId, sessionId: s.id, outcome: proceedOnce, voterClientId: silent[0] });
    expect(agentChunks(turn)).toEqual(["permission: selected proceed_once"]);
  });
});

describe(`room for a new attach at the cap (${MAX_CLIENTS_PER_SESSION})`, () => {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon();
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });

  test(`${MAX_CLIENTS_PER_SESSION} clients that each presented their id once do not lock out the next attach; the least recently active one makes room, a watching one never does`, async () => {
    await using s = await openSession(d, "single");
    await using _watching = await s.events({ "X-Svc-Client-Id": s.clientId });
    const used: string[] = [];
    while ((await clientCount(s)) < MAX_CLIENTS_PER_SESSION) {
      const id = await s.addClient();
      expect((await heartbeat(s, id)).status).toBe(200); // a page load that used its id once
      used.push(id);
    }
    const attach = await d.json("POST", "/session", { sessionScope: "single" });
    expect(attach.status).toBe(200);
    expect(attach.body).toMatchObject({ sessionId: s.id, attached: true });
    expect(await clientCount(s)).toBe(MAX_CLIENTS_PER_SESSION);
    expect((await heartbeat(s, used[0]!)).status).toBe(400);
    expect((await heartbeat(s, used[1]!)).status).toBe(200);
    expect((await heartbeat(s, s.clientId)).status).toBe(200);
  }, 60_000);
});
