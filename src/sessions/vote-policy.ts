/**
 * Permission vote decisions (pure), per mediation mode:
 * - `first-responder`: any vote for an offered option resolves it;
 * - `designated`: only the prompt originator's client (falls back to first-responder when the
 *   prompt had none);
 * - `consensus`: voters registered on the session at issue; quorum = `consensusQuorum` capped to
 *   their number, else floor(M/2)+1; the first option to reach it wins; a repeat vote is ignored;
 *   with nobody registered at issue it falls back to first-responder;
 * - `local-only`: votes from loopback sockets only.
 * A `cancelled` vote resolves under every policy.
 */
import type { PermissionStrategy } from "../config/settings.ts";

export type VoteOutcome = { readonly outcome: "selected"; readonly optionId: string } | { readonly outcome: "cancelled" };

export interface VotePolicy {
  readonly strategy: PermissionStrategy;
  readonly quorum: number | null;
  /** Client ids registered on the session when the request was issued. */
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
  | { readonly kind: "forbidden"; readonly reason: "designated_mismatch" | "remote_not_allowed" };

export function quorumOf(policy: VotePolicy): number {
  const m = policy.electorate.length;
  return Math.max(1, Math.min(policy.quorum ?? Math.floor(m / 2) + 1, m));
}

/** Decides one vote; records it in `votes` (voter → option) under consensus. */
export function decideVote(policy: VotePolicy, votes: Map<string, string>, outcome: VoteOutcome, voter: VoterLike): VoteDecision {
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
      if (policy.electorate.length === 0) return { kind: "resolve", outcome };
      if (voter.clientId === null || !policy.electorate.includes(voter.clientId)) return { kind: "forbidden", reason: "designated_mismatch" };
      if (!votes.has(voter.clientId)) votes.set(voter.clientId, outcome.optionId);
      const quorum = quorumOf(policy);
      const optionTallies: Record<string, number> = {};
      for (const option of votes.values()) optionTallies[option] = (optionTallies[option] ?? 0) + 1;
      const winner = Object.entries(optionTallies).find(([, n]) => n >= quorum);
      if (winner) return { kind: "resolve", outcome: { outcome: "selected", optionId: winner[0] } };
      const best = Math.max(...Object.values(optionTallies));
      return { kind: "partial", tally: { votesReceived: votes.size, votesNeeded: quorum - best, quorum, optionTallies } };
    }
  }
}
