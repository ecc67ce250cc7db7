/** Permission vote decisions under each mediation mode (pure). */
import { describe, expect, test } from "bun:test";
import type { PermissionStrategy } from "../../../src/config/settings.ts";
import { decideVote, quorumOf, tallyVotes, type VoteOutcome, type VotePolicy } from "../../../src/sessions/vote-policy.ts";

const policy = (strategy: PermissionStrategy, extra: Partial<VotePolicy> = {}): VotePolicy => ({ strategy, quorum: null, electorate: [], originator: null, ...extra });
const select = (optionId: string): VoteOutcome => ({ outcome: "selected", optionId });
const cancelled: VoteOutcome = { outcome: "cancelled" };
const local = (clientId: string | null = null) => ({ clientId, loopback: true });
const remote = (clientId: string | null = null) => ({ clientId, loopback: false });

describe("first-responder", () => {
  test("any vote resolves, anonymous or remote", () => {
    expect(decideVote(policy("first-responder"), new Map(), select("proceed_once"), remote(), [])).toEqual({ kind: "resolve", outcome: select("proceed_once") });
  });
});

describe("designated", () => {
  const designated = policy("designated", { originator: "client_a", electorate: ["client_a", "client_b"] });
  const present = designated.electorate;

  test("only the prompt originator resolves", () => {
    expect(decideVote(designated, new Map(), select("proceed_once"), local("client_a"), present)).toEqual({ kind: "resolve", outcome: select("proceed_once") });
    expect(decideVote(designated, new Map(), select("proceed_once"), local("client_b"), present)).toEqual({ kind: "forbidden", reason: "designated_mismatch" });
    expect(decideVote(designated, new Map(), select("proceed_once"), local(null), present)).toEqual({ kind: "forbidden", reason: "designated_mismatch" });
  });

  test("falls back to first-responder when the prompt had no originator", () => {
    expect(decideVote(policy("designated"), new Map(), select("proceed_once"), remote("client_z"), []).kind).toBe("resolve");
  });
});

describe("local-only", () => {
  test("resolves loopback votes, anonymous included", () => {
    expect(decideVote(policy("local-only"), new Map(), select("proceed_once"), local(), []).kind).toBe("resolve");
  });

  test("refuses votes from other addresses with remote_not_allowed", () => {
    expect(decideVote(policy("local-only"), new Map(), select("proceed_once"), remote("client_a"), [])).toEqual({ kind: "forbidden", reason: "remote_not_allowed" });
  });
});

describe("consensus", () => {
  const electorate = ["client_a", "client_b", "client_c"];

  test("the default quorum is a majority of the voters that count", () => {
    expect(quorumOf(policy("consensus"), 3)).toBe(2);
    expect(quorumOf(policy("consensus"), 4)).toBe(3);
    expect(quorumOf(policy("consensus"), 1)).toBe(1);
  });

  test("a configured quorum is capped to the number of voters that count", () => {
    expect(quorumOf(policy("consensus", { quorum: 2 }), 3)).toBe(2);
    expect(quorumOf(policy("consensus", { quorum: 10 }), 3)).toBe(3);
  });

  test("votes below quorum are partial with a tally; the first option to reach quorum wins", () => {
    const p = policy("consensus", { electorate });
    const votes = new Map<string, string>();
    expect(decideVote(p, votes, select("proceed_once"), local("client_a"), electorate)).toEqual({
      kind: "partial",
      tally: { votesReceived: 1, votesNeeded: 1, quorum: 2, optionTallies: { proceed_once: 1 } },
    });
    expect(decideVote(p, votes, select("cancel"), local("client_b"), electorate)).toEqual({
      kind: "partial",
      tally: { votesReceived: 2, votesNeeded: 1, quorum: 2, optionTallies: { proceed_once: 1, cancel: 1 } },
    });
    expect(decideVote(p, votes, select("cancel"), local("client_c"), electorate)).toEqual({ kind: "resolve", outcome: select("cancel") });
  });

  test("a voter's repeat vote changes nothing", () => {
    const p = policy("consensus", { electorate });
    const votes = new Map<string, string>();
    decideVote(p, votes, select("proceed_once"), local("client_a"), electorate);
    expect(decideVote(p, votes, select("proceed_always"), local("client_a"), electorate)).toEqual({ kind: "repeat" });
    expect([...votes]).toEqual([["client_a", "proceed_once"]]);
  });

  test("voters not registered at issue, voters gone since, and anonymous voters are refused", () => {
    const p = policy("consensus", { electorate });
    expect(decideVote(p, new Map(), select("proceed_once"), local("client_late"), electorate)).toEqual({ kind: "forbidden", reason: "designated_mismatch" });
    expect(decideVote(p, new Map(), select("proceed_once"), local(null), electorate)).toEqual({ kind: "forbidden", reason: "designated_mismatch" });
    expect(decideVote(p, new Map(), select("proceed_once"), local("client_c"), ["client_a", "client_b"])).toEqual({ kind: "forbidden", reason: "designated_mismatch" });
  });

  test("with nobody registered at issue, or all of them gone before voting, it falls back to first-responder", () => {
    expect(decideVote(policy("consensus"), new Map(), select("proceed_once"), remote(), []).kind).toBe("resolve");
    expect(decideVote(policy("consensus", { electorate }), new Map(), select("proceed_once"), remote(), []).kind).toBe("resolve");
  });

  test("the quorum counts only voters that can still vote, plus those who already voted", () => {
    const p = policy("consensus", { electorate, quorum: 3 });
    const votes = new Map([
      ["client_a", "proceed_once"],
      ["client_b", "proceed_once"],
    ]);
    // All three can vote: 2 of 3 is short of the quorum.
    expect(tallyVotes(p, votes, electorate)).toEqual({ winner: null, tally: { votesReceived: 2, votesNeeded: 1, quorum: 3, optionTallies: { proceed_once: 2 } } });
    // client_c is gone: the quorum drops to the two who count, and their votes carry it. A voter
    // gone after voting still counts.
    expect(tallyVotes(p, votes, ["client_b"]).winner).toBe("proceed_once");
    expect(tallyVotes(p, votes, ["client_a", "client_b"]).winner).toBe("proceed_once");
  });
});

describe("cancel escape hatch", () => {
  test.each(["first-responder", "designated", "consensus", "local-only"] as const)("a cancelled vote resolves under %s from anyone", (strategy) => {
    const p = policy(strategy, { originator: "client_a", electorate: ["client_a", "client_b"] });
    expect(decideVote(p, new Map(), cancelled, remote("client_stranger"), p.electorate)).toEqual({ kind: "resolve", outcome: cancelled });
    expect(decideVote(p, new Map(), cancelled, remote(null), p.electorate)).toEqual({ kind: "resolve", outcome: cancelled });
  });
});

describe("option ids are the agent's strings", () => {
  test("options named like Object.prototype members are counted as plain strings", () => {
    for (const option of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const p = policy("consensus", { electorate: ["client_a", "client_b"] });
      const votes = new Map([["client_a", option]]);
      expect(tallyVotes(p, votes, p.electorate).tally).toEqual({ votesReceived: 1, votesNeeded: 1, quorum: 2, optionTallies: { [option]: 1 } });
      votes.set("client_b", option);
      expect(tallyVotes(p, votes, p.electorate).winner).toBe(option);
    }
  });

  test("the winner is the first option to reach quorum in voting order, whatever its spelling", () => {
    const p = policy("consensus", { electorate: ["a", "b", "c", "d"], quorum: 2 });
    const votes = new Map([["a", "later"], ["b", "7"], ["c", "later"], ["d", "7"]]);
    expect(tallyVotes(p, votes, p.electorate).winner).toBe("later");
  });
});
