/**
 * The permission mediation modes over HTTP, each configured through `$SVC_HOME/settings.json`
 * (`policy.permissionStrategy`, `policy.consensusQuorum`): `designated`, `consensus` and
 * `local-only`. Votes come from loopback, except in the `local-only` test that serves the real app
 * with a stand-in peer address (`helpers/session-app.ts`) to send one from another host.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { agentChunks, openSession, untilTurnEnds, type TestSession } from "../helpers/prompt-session.ts";
import { PEER_ADDRESS_HEADER, startSessionApp } from "../helpers/session-app.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";

const proceedOnce = { outcome: "selected", optionId: "proceed_once" };

async function askPermission(s: TestSession, sse: SseClient, clientId: string | null): Promise<{ promptId: string; requestId: string }> {
  const admitted = await s.prompt("@permission", { clientId });
  expect(admitted.status).toBe(202);
  const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === admitted.body.promptId);
  return { promptId: admitted.body.promptId, requestId: request.data.requestId };
}

async function reportedPolicy(d: FakeAgentDaemon) {
  const capabilities = (await (await d.fetch("/capabilities")).json()) as { policy: { permission: string } };
  const status = (await (await d.fetch("/daemon/status")).json()) as { runtime: { permissions: { policy: string } } };
  return [capabilities.policy.permission, status.runtime.permissions.policy];
}

function withPolicy(policy: { permissionStrategy: string; consensusQuorum?: number }, body: (daemon: () => FakeAgentDaemon) => void) {
  let d: FakeAgentDaemon;
  beforeAll(async () => {
    d = await fakeAgentDaemon([], { settings: { policy } });
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });
  body(() => d);
}

describe("designated", () => {
  withPolicy({ permissionStrategy: "designated" }, (daemon) => {
    test("is the reported policy", async () => {
      expect(await reportedPolicy(daemon())).toEqual(["designated", "designated"]);
    });

    test("only the prompt originator resolves; other clients get 403 designated_mismatch and a permission_forbidden event", async () => {
      await using s = await openSession(daemon(), "single");
      const other = await s.addClient();
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, s.clientId);

      for (const voter of [other, null]) {
        const refused = await s.vote(requestId, proceedOnce, { clientId: voter });
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ error: expect.any(String), code: "permission_forbidden", requestId, sessionId: s.id, reason: "designated_mismatch" });
        const event = await sse.waitFor("permission_forbidden");
        expect(event.data).toEqual({ requestId, sessionId: s.id, reason: "designated_mismatch", ...(voter ? { clientId: voter } : {}) });
      }

      const accepted = await s.vote(requestId, proceedOnce, { clientId: s.clientId });
      expect(accepted.status).toBe(200);
      const turn = await untilTurnEnds(sse, promptId);
      expect(turn[0]!.data).toEqual({ requestId, sessionId: s.id, outcome: proceedOnce, voterClientId: s.clientId });
      expect(agentChunks(turn)).toEqual(["permission: selected proceed_once"]);
    });

    test("a cancelled outcome from another client still resolves the request", async () => {
      await using s = await openSession(daemon(), "single");
      const other = await s.addClient();
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, s.clientId);
      expect((await s.vote(requestId, { outcome: "cancelled" }, { clientId: other })).status).toBe(200);
      const turn = await untilTurnEnds(sse, promptId);
      expect(turn[0]!.data).toEqual({ requestId, sessionId: s.id, outcome: { outcome: "cancelled" }, voterClientId: other });
      expect(agentChunks(turn)).toEqual(["permission: cancelled"]);
    });

    test("a prompt without an originator falls back to first-responder", async () => {
      await using s = await openSession(daemon(), "single");
      const other = await s.addClient();
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, null);
      expect((await s.vote(requestId, proceedOnce, { clientId: other })).status).toBe(200);
      await untilTurnEnds(sse, promptId);
    });
  });
});

describe("consensus", () => {
  withPolicy({ permissionStrategy: "consensus", consensusQuorum: 3 }, (daemon) => {
    test("is the reported policy", async () => {
      expect(await reportedPolicy(daemon())).toEqual(["consensus", "consensus"]);
    });

    test("with three acting clients and quorum 3: partial votes publish permission_partial_vote, the quorum resolves", async () => {
      await using s = await openSession(daemon(), "single");
      const [a, b, c] = [s.clientId, await s.addClient(), await s.addClient()];
      // Clients that have acted (presented their id) make up the electorate.
      for (const acting of [b, c]) expect((await daemon().json("POST", `/session/${s.id}/heartbeat`, {}, { "X-Svc-Client-Id": acting })).status).toBe(200);
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, a);
      const late = await s.addClient(); // registered after the request was issued: not a voter

      const first = await s.vote(requestId, proceedOnce, { clientId: a });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({});
      const partial1 = await sse.waitFor("permission_partial_vote");
      expect(partial1.data).toEqual({ requestId, sessionId: s.id, votesReceived: 1, votesNeeded: 2, quorum: 3, optionTallies: { proceed_once: 1 } });
      expect(partial1.envelope).toMatchObject({ originatorClientId: a, promptId });

      // A repeat vote changes nothing and publishes nothing; outsiders are refused, each announced once.
      expect((await s.vote(requestId, { outcome: "selected", optionId: "cancel" }, { clientId: a })).status).toBe(200);
      for (const outsider of [late, null, late, null]) {
        const refused = await s.vote(requestId, proceedOnce, { clientId: outsider });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: "permission_forbidden", reason: "designated_mismatch" });
      }

      expect((await s.vote(requestId, proceedOnce, { clientId: b })).status).toBe(200);
      // The next partial vote is b's: the repeat vote published none.
      expect((await sse.waitFor("permission_partial_vote")).data).toEqual({ requestId, sessionId: s.id, votesReceived: 2, votesNeeded: 1, quorum: 3, optionTallies: { proceed_once: 2 } });
      expect(sse.frames.some((f) => f.event === "permission_resolved")).toBe(false);

      expect((await s.vote(requestId, proceedOnce, { clientId: c })).status).toBe(200);
      const turn = await untilTurnEnds(sse, promptId);
      const resolved = turn.find((f) => f.event === "permission_resolved")!;
      expect(resolved.data).toEqual({ requestId, sessionId: s.id, outcome: proceedOnce, voterClientId: c });
      expect(agentChunks(turn)).toEqual(["permission: selected proceed_once"]);
      expect(sse.frames.filter((f) => f.event === "permission_forbidden")).toHaveLength(2);
    });

    test("a cancelled outcome resolves at once, even from an anonymous client", async () => {
      await using s = await openSession(daemon(), "single");
      await s.addClient();
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, s.clientId);
      expect((await s.vote(requestId, { outcome: "cancelled" })).status).toBe(200);
      const turn = await untilTurnEnds(sse, promptId);
      expect(turn[0]!.data).toEqual({ requestId, sessionId: s.id, outcome: { outcome: "cancelled" } });
      expect(agentChunks(turn)).toEqual(["permission: cancelled"]);
    });
  });
});

describe("local-only", () => {
  withPolicy({ permissionStrategy: "local-only" }, (daemon) => {
    test("is the reported policy", async () => {
      expect(await reportedPolicy(daemon())).toEqual(["local-only", "local-only"]);
    });

    test("a vote from loopback resolves, anonymous or not", async () => {
      await using s = await openSession(daemon());
      await using sse = await s.events();
      for (const voter of [null, s.clientId]) {
        const { promptId, requestId } = await askPermission(s, sse, s.clientId);
        expect((await s.vote(requestId, proceedOnce, { clientId: voter })).status).toBe(200);
        const turn = await untilTurnEnds(sse, promptId);
        expect(turn[0]!.data).toMatchObject({ requestId, outcome: proceedOnce });
        expect(agentChunks(turn)).toEqual(["permission: selected proceed_once"]);
      }
    });

    test("through the real route, a vote from another host is 403 remote_not_allowed; loopback peers in any spelling resolve", async () => {
      await using app = await startSessionApp({ settings: { policy: { permissionStrategy: "local-only" } } });
      const created = await app.json("POST", "/session", { sessionScope: "thread" });
      expect(created.status).toBe(200);
      const sessionId = created.body.sessionId as string;
      await using sse = await openSse(`${app.url}/session/${sessionId}/events`);
      const ask = async () => {
        const admitted = await app.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@permission" }] });
        expect(admitted.status).toBe(202);
        const request = await sse.waitFor("permission_request", (f) => f.envelope.promptId === admitted.body.promptId);
        return { promptId: admitted.body.promptId as string, requestId: request.data.requestId as string };
      };
      const vote = (requestId: string, peer: string, legacy = false) =>
        app.json("POST", legacy ? `/permission/${requestId}` : `/session/${sessionId}/permission/${requestId}`, { outcome: proceedOnce }, { [PEER_ADDRESS_HEADER]: peer });

      const { promptId, requestId } = await ask();
      for (const [peer, legacy] of [["192.0.2.7", false], ["fd00::7", false], ["::ffff:192.0.2.7", true]] as const) {
        const refused = await vote(requestId, peer, legacy);
        expect({ peer, status: refused.status, body: refused.body }).toEqual({
          peer,
          status: 403,
          body: { error: expect.any(String), code: "permission_forbidden", requestId, sessionId, reason: "remote_not_allowed" },
        });
      }
      // The remote refusals were announced once (one anonymous voter), and the request is still pending.
      expect(sse.frames.filter((f) => f.event === "permission_forbidden").map((f) => f.data)).toEqual([{ requestId, sessionId, reason: "remote_not_allowed" }]);
      expect(sse.frames.some((f) => f.event === "permission_resolved")).toBe(false);
      expect((await vote(requestId, "::ffff:127.0.0.1")).status).toBe(200);
      expect(agentChunks(await untilTurnEnds(sse, promptId))).toEqual(["permission: selected proceed_once"]);

      for (const peer of ["127.0.0.1", "::1", "127.8.9.10"]) {
        const next = await ask();
        expect({ peer, status: (await vote(next.requestId, peer)).status }).toEqual({ peer, status: 200 });
        await untilTurnEnds(sse, next.promptId);
      }
    });

    test("a cancelled outcome resolves", async () => {
      await using s = await openSession(daemon());
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, s.clientId);
      expect((await s.vote(requestId, { outcome: "cancelled" })).status).toBe(200);
      expect(agentChunks(await untilTurnEnds(sse, promptId))).toEqual(["permission: cancelled"]);
    });
  });
});

describe("first-responder (the default)", () => {
  withPolicy({ permissionStrategy: "first-responder" }, (daemon) => {
    test("is the reported policy, and any client's vote resolves", async () => {
      expect(await reportedPolicy(daemon())).toEqual(["first-responder", "first-responder"]);
      await using s = await openSession(daemon(), "single");
      const other = await s.addClient();
      await using sse = await s.events();
      const { promptId, requestId } = await askPermission(s, sse, s.clientId);
      expect((await s.vote(requestId, proceedOnce, { clientId: other })).status).toBe(200);
      expect((await untilTurnEnds(sse, promptId))[0]!.data).toMatchObject({ voterClientId: other });
    });
  });
});
