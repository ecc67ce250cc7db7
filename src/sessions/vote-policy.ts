/**
 * Permission vote decisions (pure), per mediation mode:
 * - `first-responder`: any vote for an offered option resolves it;
 * - `designated`: only the prompt originator's client (falls back to first-responder when the
 *   prompt had none);
 * - `consensus`: the clients registered on the session at issue (the electorate, fixed at issue as
 *   protocol-notes §10 has it) that can still vote; quorum = `consensusQuorum` capped to the
 *   voters that count, else floor(M/2)+1, where the voters that count (M) are the electorate
 *   members still registered that have acted (presented their id) plus those who already voted: an
 *   id that expires or is evicted stops counting, and one that never acted (a poller, a page
 *   reload) counts only once it votes, so a quorum never waits on a client that is gone or idle.
 *   The first option to reach quorum wins; a voter's repeat vote changes nothing; when nobody in
 *   the electorate can vote (nobody registered at issue, or all of them gone without voting) it
 *   falls back to first-responder;
 * - `local-only`: votes from loopback sockets only.
 * A `cancelled` vote resolves under every policy.
 */
import type { PermissionStrategy } from "../config/settings.ts";

export type VoteOutcome = { readonly outcome: "selected"; readonly optionId: string } | { readonly outcome: "cancelled" };

export interface VotePolicy {
  readonly strategy: PermissionStrategy;
  readonly quorum: number | null;
  /** Client ids registered on the session, and acting, when the request was issued. */
  readonly electorate: readonly string[];
  readonly originator: string | null;
}

export interface VoterLike {
  readonly clientId: string | null;
  readonly loopback: boolean;
}

export interface Tally {
  readonly votesReceived: number;
  readonly votesNeeded: number;
  readonly quorum: number;
  readonly optionTallies: Record<string, number>;
}

export type VoteDecision =
  | { readonly kind: "resolve"; readonly outcome: VoteOutcome }
  | { readonly kind: "partial"; readonly tally: Tally }
  /** A consensus voter voting again: the first vote stands and nothing changes. */
  | { readonly kind: "repeat" }
  | { readonly kind: "forbidden"; readonly reason: "designated_mismatch" | "remote_not_allowed" };

/** Quorum over `counted` voters: the configured one capped to them, else a majority. */
export function quorumOf(policy: VotePolicy, counted: number): number {
  return Math.max(1, Math.min(policy.quorum ?? Math.floor(counted / 2) + 1, counted));
}

/**
 * The consensus count: `counting` are the electorate members that can still vote and have acted,
 * `votes` the recorded ones (voter → option). `winner` is the first option (in voting order) at quorum.
 */
export function tallyVotes(policy: VotePolicy, votes: ReadonlyMap<string, string>, counting: readonly string[]): { winner: string | null; tally: Tally } {
  const counted = new Set([...counting, ...votes.keys()]).size;
  const quorum = quorumOf(policy, counted);
  // A Map, not an object literal: option ids are the agent's strings (`constructor`, `__proto__`).
  const counts = new Map<string, number>();
  for (const option of votes.values()) counts.set(option, (counts.get(option) ?? 0) + 1);
  const winner = [...counts].find(([, n]) => n >= quorum)?.[0] ?? null;
  const best = Math.max(0, ...counts.values());
  return { winner, tally: { votesReceived: votes.size, votesNeeded: quorum - best, quorum, optionTallies: Object.fromEntries(counts) } };
}

/**
 * Decides one vote; records it in `votes` under consensus. `present` are the electorate members
 * that can still vote (registered and not expired), `counting` those of them that count towards
 * the quorum (they have acted; all of `present` when not given).
 */
export function decideVote(
  policy: VotePolicy,
  votes: Map<string, string>,
  outcome: VoteOutcome,
  voter: VoterLike,
  present: readonly string[],
  counting: readonly string[] = present,
): VoteDecision {
  if (outcome.outcome === "cancelled") return { kind: "resolve", outcome };
  switch (policy.strategy) {
    case "first-responder":
      return { kind: "resolve", outcome };
    case "designated":
      if (policy.originator === null || voter.clientId === policy.originator) return { kind: "resolve", outcome };
      return { kind: "forbidden", reason: "designated_mismatch" };
    case "local-only":
      return voter.loopback ? { kind: "resolve", outcome } : { kind: "forbidden", reason: "remote_not_allowed" };
    case "consensus": {
      if (present.length === 0 && votes.size === 0) return { kind: "resolve", outcome };
      if (voter.clientId === null || !present.includes(voter.clientId)) return { kind: "forbidden", reason: "designated_mismatch" };
      if (votes.has(voter.clientId)) return { kind: "repeat" };
      votes.set(voter.clientId, outcome.optionId);
      const { winner, tally } = tallyVotes(policy, votes, counting);
      return winner === null ? { kind: "partial", tally } : { kind: "resolve", outcome: { outcome: "selected", optionId: winner } };
    }
  }
}
