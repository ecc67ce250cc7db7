/** Client ids of one session (a fake clock): lifetime by activity, pinning, and room at the cap. */
import { describe, expect, test } from "bun:test";
import { DaemonError } from "../../../src/errors/daemon-error.ts";
import { ClientRegistry, MAX_CLIENTS_PER_SESSION } from "../../../src/sessions/client-ids.ts";

const TTL = 1000;

function registry(idleTtlMs = TTL) {
  const clock = { now: 0 };
  const forgotten: string[] = [];
  const voting = new Set<string>();
  const clients = new ClientRegistry({ sessionId: "s1", idleTtlMs, now: () => clock.now, onForget: (ids) => void forgotten.push(...ids), isVoting: (id) => voting.has(id) });
  return { clients, clock, forgotten, voting };
}

function refusal(run: () => unknown): DaemonError {
  try {
    run();
  } catch (err) {
    if (err instanceof DaemonError) return err;
    throw err;
  }
  throw new Error("expected a DaemonError");
}

describe("lifetime", () => {
  test("an id expires after the idle TTL without activity; using it refreshes it", () => {
    const { clients, clock, forgotten } = registry();
    const a = clients.attach(null);
    const b = clients.attach(null);
    clock.now = 900;
    expect(clients.use(a)).toBe(a);
    clock.now = 1500;
    expect(clients.has(a)).toBe(true);
    expect(clients.has(b)).toBe(false);
    expect(clients.ids()).toEqual([a]);
    expect(clients.size).toBe(1);
    const err = refusal(() => clients.use(b));
    expect(err.status).toBe(400);
    expect(err.body()).toMatchObject({ code: "invalid_client_id", sessionId: "s1", clientId: b });
    expect(forgotten).toEqual([b]);
  });

  test("re-attaching with a live id refreshes it; with an expired one mints a new id", () => {
    const { clients, clock } = registry();
    const a = clients.attach(null);
    clock.now = 900;
    expect(clients.attach(a)).toBe(a);
    clock.now = 1800;
    expect(clients.has(a)).toBe(true);
    clock.now = 2000;
    const again = clients.attach(a);
    expect(again).not.toBe(a);
    expect(clients.has(a)).toBe(false);
  });

  test("a pinned id (its prompt is pending) does not expire; once unpinned and touched it lives a TTL more", () => {
    const { clients, clock } = registry();
    const a = clients.attach(null);
    clients.pin(a);
    clock.now = 10_000;
    expect(clients.has(a)).toBe(true);
    expect(clients.sweep()).toEqual([]);
    clients.unpin(a);
    clients.touch(a);
    clock.now = 10_999;
    expect(clients.has(a)).toBe(true);
    clock.now = 11_000;
    expect(clients.sweep()).toEqual([a]);
  });

  test("a hold (an open event stream) keeps a registered id alive; its release counts as activity, once", () => {
    const { clients, clock } = registry();
    const a = clients.attach(null);
    const release = clients.hold(a);
    clock.now = 10_000;
    expect(clients.sweep()).toEqual([]);
    release();
    release();
    clock.now = 10_999;
    expect(clients.has(a)).toBe(true);
    clock.now = 11_000;
    expect(clients.sweep()).toEqual([a]);
  });

  test("a hold on an absent, malformed, unknown or expired id holds nothing", () => {
    const { clients, clock } = registry();
    const a = clients.attach(null);
    clock.now = 2000;
    for (const header of [null, "", "bad id", "client_unknown", a]) clients.hold(header)();
    expect(clients.has(a)).toBe(false);
    expect(clients.ids()).toEqual([]);
  });

  test("acting ids (those a consensus quorum counts) are the live ids presented by a call or an event stream, never a bare attach", () => {
    const { clients, clock } = registry();
    const [called, watching, gone] = [clients.attach(null), clients.attach(null), clients.attach(null)];
    clients.use(gone);
    clock.now = 600;
    const silent = clients.attach(null);
    clients.use(called);
    clients.hold(watching);
    clock.now = 1100;
    expect(clients.has(silent)).toBe(true);
    expect(clients.ids()).toEqual([called, watching, silent]);
    expect(clients.ids().filter((id) => clients.isActing(id))).toEqual([called, watching]);
  });

  test("with a TTL of 0 ids never expire", () => {
    const { clients, clock } = registry(0);
    const a = clients.attach(null);
    clock.now = Number.MAX_SAFE_INTEGER;
    expect(clients.has(a)).toBe(true);
  });

  test("sweep forgets expired ids and reports them once", () => {
    const { clients, clock, forgotten } = registry();
    const [a, b] = [clients.attach(null), clients.attach(null)];
    clock.now = 500;
    clients.use(b);
    clock.now = 1200;
    expect(clients.sweep()).toEqual([a]);
    expect(clients.sweep()).toEqual([]);
    expect(forgotten).toEqual([a]);
  });
});

describe(`room at the cap (${MAX_CLIENTS_PER_SESSION})`, () => {
  test("registering past the cap evicts the least recently active id that is not pinned, whether it was presented or not", () => {
    const { clients, clock, forgotten } = registry(0);
    const pinned = clients.attach(null);
    clients.use(pinned);
    clients.pin(pinned);
    const others: string[] = [];
    for (let i = 1; i < MAX_CLIENTS_PER_SESSION; i++) {
      clock.now = i;
      others.push(clients.attach(null));
    }
    // The oldest of the others acts last: it is now the most recently active.
    clock.now = 1000;
    clients.use(others[0]!);
    for (let i = 0; i < 3 * MAX_CLIENTS_PER_SESSION; i++) clients.attach(null);
    expect(clients.has(pinned)).toBe(true);
    expect(clients.size).toBe(MAX_CLIENTS_PER_SESSION);
    expect(forgotten.slice(0, 3)).toEqual(others.slice(1, 4));
  });

  test(`${MAX_CLIENTS_PER_SESSION} clients that each presented their id once do not lock a new attach out: the least recently active one makes room`, () => {
    const { clients, clock, forgotten } = registry();
    const ids: string[] = [];
    for (let i = 0; i < MAX_CLIENTS_PER_SESSION; i++) {
      clock.now = i;
      const id = clients.attach(null);
      clients.use(id);
      ids.push(id);
    }
    const fresh = clients.attach(null);
    expect(clients.has(fresh)).toBe(true);
    expect(forgotten).toEqual([ids[0]!]);
    expect(clients.size).toBe(MAX_CLIENTS_PER_SESSION);
  });

  test("a voter on a pending consensus request is not evicted to make room: a flood of attaches cannot shrink its quorum", () => {
    const { clients, clock, forgotten, voting } = registry();
    const voter = clients.attach(null);
    clients.use(voter);
    voting.add(voter);
    for (let i = 1; i < MAX_CLIENTS_PER_SESSION; i++) {
      clock.now = i;
      clients.attach(null);
    }
    for (let i = 0; i < 3 * MAX_CLIENTS_PER_SESSION; i++) clients.attach(null);
    expect(clients.has(voter)).toBe(true);
    expect(forgotten).not.toContain(voter);
    voting.delete(voter);
    clients.attach(null);
    expect(forgotten).toContain(voter);
  });

  test("expired ids make room first", () => {
    const { clients, clock, forgotten } = registry();
    const ids = Array.from({ length: MAX_CLIENTS_PER_SESSION }, () => clients.attach(null));
    clock.now = 900;
    for (const id of ids.slice(1)) clients.use(id);
    clock.now = 1500;
    clients.attach(null);
    expect(forgotten).toEqual([ids[0]!]);
  });

  test("with every id pinned (a pending prompt or an open event stream), one more attach is 503 client_limit_exceeded and nobody is evicted", () => {
    const { clients, forgotten } = registry();
    const ids = Array.from({ length: MAX_CLIENTS_PER_SESSION }, () => clients.attach(null));
    for (const [i, id] of ids.entries()) {
      if (i % 2 === 0) clients.pin(id);
      else clients.hold(id);
    }
    const err = refusal(() => clients.attach(null));
    expect(err.status).toBe(503);
    expect(err.retryAfter).toBe(5);
    expect(err.body()).toMatchObject({ code: "client_limit_exceeded", sessionId: "s1", limit: MAX_CLIENTS_PER_SESSION });
    expect(forgotten).toEqual([]);
    expect(clients.size).toBe(MAX_CLIENTS_PER_SESSION);
  });

  test("a pinned id that was never presented is not evicted", () => {
    const { clients } = registry(0);
    const pinned = clients.attach(null);
    clients.pin(pinned);
    for (let i = 0; i < 2 * MAX_CLIENTS_PER_SESSION; i++) clients.attach(null);
    expect(clients.has(pinned)).toBe(true);
  });
});
