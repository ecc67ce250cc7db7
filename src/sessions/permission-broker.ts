/**
 * Tool-permission requests of one session, mediated between the agent and any number of clients.
 * The agent's `session/request_permission` becomes a `permission_request` event with a daemon-minted
 * `requestId`; votes resolve it under the session's policy (captured per request at issue):
 * `first-responder`, `designated`, `consensus` or `local-only`. A `cancelled` vote resolves under
 * every policy. Pending requests are capped (MAX_PENDING; extra ones are cancelled at once), and
 * each is bounded in bytes before it is kept or published (`runtime/permission-bounds.ts`; the
 * channel has bounded it already as it arrived): one past the option bounds is refused (the agent
 * gets a JSON-RPC error, the session a `permission_request_refused` event), an oversized tool call
 * is cut, and a pending request keeps only its options and a summary of its tool call (the whole
 * call went out in its event).
 *
 * A vote that changes nothing publishes nothing that takes an event id, so no client can flush the
 * replay ring by voting: a late vote (the request is resolved or unknown) gets its 404 only, a
 * consensus voter's repeat vote its 200 only, and a refused vote publishes `permission_forbidden`
 * once per request and voter (anonymous voters count as one), which the client registry's cap
 * bounds.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { PermissionStrategy } from "../config/settings.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import type { EnvelopeFields } from "../events/frame.ts";
import { AgentRequestRefused, INVALID_PARAMS } from "../runtime/agent-request-refused.ts";
import { boundOption, boundToolCall, permissionRefusal, refusalMessage, toolCallSummary } from "../runtime/permission-bounds.ts";
import { decideVote, tallyVotes, type VoteOutcome, type VotePolicy } from "./vote-policy.ts";

export const MAX_PENDING = 64;
/** Reserved option id; an agent offering it is refused. */
export const CANCEL_SENTINEL = "__cancelled__";

export type CancelReason = "timeout" | "session_closed" | "prompt_cancelled" | "agent_cancelled" | "vote" | "channel_closed";

export interface PendingPermission {
  readonly requestId: string;
  readonly promptId: string | null;
  readonly originatorClientId: string | null;
  /** The tool call's identity (`toolCallSummary`); the whole call is in the request's event. */
  readonly toolCall: Record<string, unknown>;
  readonly options: readonly acp.PermissionOption[];
  readonly createdAt: number;
  readonly policy: VotePolicy;
  readonly votes: Map<string, string>;
  /** Voters already refused (client id, "" for anonymous): each is announced once. */
  readonly refused: Set<string>;
  readonly settle: (response: acp.RequestPermissionResponse, reason: CancelReason | null) => void;
}

export interface BrokerContext {
  readonly sessionId: string;
  publish(type: string, data: unknown, fields?: EnvelopeFields): void;
  /** The consensus electorate of a request issued now: the clients registered on the session. */
  electorate(): string[];
  /** Whether a client id is still registered (can still vote). */
  canVote(clientId: string): boolean;
  /** Whether a registered client has acted (presented its id): only those count towards a quorum. */
  isActing(clientId: string): boolean;
  /** The running prompt's id and originator, stamped on the request. */
  promptFields(): EnvelopeFields;
}

export interface BrokerSettings {
  readonly strategy: PermissionStrategy;
  readonly consensusQuorum: number | null;
  readonly responseTimeoutMs: number;
}

export interface Voter {
  readonly clientId: string | null;
  readonly loopback: boolean;
}

export class PermissionBroker {
  private readonly pending = new Map<string, PendingPermission>();

  constructor(
    private readonly ctx: BrokerContext,
    private readonly settings: BrokerSettings,
  ) {}

  /** Whether `clientId` is in the electorate of a pending consensus request and has not voted on it. */
  isVoting(clientId: string): boolean {
    for (const entry of this.pending.values()) if (entry.policy.strategy === "consensus" && entry.policy.electorate.includes(clientId) && !entry.votes.has(clientId)) return true;
    return false;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  list(): PendingPermission[] {
    return [...this.pending.values()];
  }

  /** Whether this session has the request pending. */
  has(requestId: string): boolean {
    return this.pending.has(requestId);
  }

  /**
   * Handles the agent's request; resolves with the ACP answer once voted, cancelled or timed out.
   * A request past the option bounds rejects with AgentRequestRefused (the agent's answer).
   */
  request(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const offered = Array.isArray(params.options) ? params.options : [];
    if (this.pending.size >= MAX_PENDING || offered.some((o) => o.optionId === CANCEL_SENTINEL) || signal.aborted)
      return Promise.resolve({ outcome: { outcome: "cancelled" } });
    const fields = this.ctx.promptFields();
    const refusal = permissionRefusal(offered);
    if (refusal !== null) {
      this.ctx.publish("permission_request_refused", { sessionId: this.ctx.sessionId, ...refusal }, fields);
      return Promise.reject(new AgentRequestRefused(INVALID_PARAMS, refusalMessage(refusal), { ...refusal }));
    }
    const options = offered.map(boundOption) as acp.PermissionOption[];
    const toolCall = boundToolCall(params.toolCall);

    const requestId = crypto.randomUUID();
    const electorate = this.ctx.electorate();
    return new Promise((resolve) => {
      let timer: Timer | undefined;
      const onAbort = () => this.cancel(requestId, "agent_cancelled");
      const entry: PendingPermission = {
        requestId,
        promptId: fields.promptId ?? null,
        originatorClientId: fields.originatorClientId ?? null,
        toolCall: toolCallSummary(toolCall),
        options,
        createdAt: Date.now(),
        policy: { strategy: this.settings.strategy, quorum: this.settings.consensusQuorum, electorate, originator: fields.originatorClientId ?? null },
        votes: new Map(),
        refused: new Set(),
        settle: (response, reason) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          this.pending.delete(requestId);
          resolve(reason === null ? response : { ...response, _meta: { "svc.daemon.permissionCancelReason": reason } });
        },
      };
      this.pending.set(requestId, entry);
      signal.addEventListener("abort", onAbort, { once: true });
      if (this.settings.responseTimeoutMs > 0) timer = setTimeout(() => this.cancel(requestId, "timeout"), this.settings.responseTimeoutMs);
      this.ctx.publish("permission_request", { requestId, sessionId: this.ctx.sessionId, toolCall, options }, fields);
    });
  }

  /**
   * A client's vote. Returns `{}` on success (resolved, or recorded under consensus); throws the
   * spec's errors otherwise. `lostVote` builds the 404 for unknown or already-resolved requests.
   */
  vote(requestId: string, outcome: VoteOutcome, voter: Voter, lostVote: () => DaemonError): Record<string, never> {
    const entry = this.pending.get(requestId);
    if (!entry) throw lostVote();
    if (outcome.outcome === "selected") {
      if (outcome.optionId === CANCEL_SENTINEL || !entry.options.some((o) => o.optionId === outcome.optionId))
        throw new DaemonError(400, "invalid_option_id", `Option ${JSON.stringify(outcome.optionId)} was not offered`, { requestId, optionId: outcome.optionId });
    }
    const present = this.present(entry);
    const decision = decideVote(entry.policy, entry.votes, outcome, voter, present, this.counting(present));
    if (decision.kind === "forbidden") {
      const key = voter.clientId ?? "";
      if (!entry.refused.has(key)) {
        entry.refused.add(key);
        this.ctx.publish("permission_forbidden", { requestId, sessionId: this.ctx.sessionId, ...(voter.clientId ? { clientId: voter.clientId } : {}), reason: decision.reason }, voterFields(voter));
      }
      throw new DaemonError(403, "permission_forbidden", "This client may not answer this permission request", { requestId, sessionId: this.ctx.sessionId, reason: decision.reason });
    }
    if (decision.kind === "repeat") return {};
    if (decision.kind === "partial") {
      this.ctx.publish("permission_partial_vote", { requestId, sessionId: this.ctx.sessionId, ...decision.tally }, { ...voterFields(voter), ...(entry.promptId ? { promptId: entry.promptId } : {}) });
      return {};
    }
    this.finish(entry, decision.outcome, voter.clientId, outcome.outcome === "cancelled" ? "vote" : null);
    return {};
  }

  /**
   * Clients left the session (expired or evicted): a consensus request whose recorded votes now
   * reach the smaller quorum resolves with the winning option.
   */
  electorateChanged(): void {
    for (const entry of [...this.pending.values()]) {
      if (entry.policy.strategy !== "consensus" || entry.votes.size === 0) continue;
      const { winner } = tallyVotes(entry.policy, entry.votes, this.counting(this.present(entry)));
      if (winner !== null) this.finish(entry, { outcome: "selected", optionId: winner }, null, null);
    }
  }

  /** Resolves one request as cancelled (timeout, agent abort). */
  cancel(requestId: string, reason: CancelReason): void {
    const entry = this.pending.get(requestId);
    if (entry) this.finish(entry, { outcome: "cancelled" }, null, reason);
  }

  /** Cancels the requests of one prompt (it was cancelled), or all of them (`promptId` null). */
  cancelAll(reason: CancelReason, promptId: string | null = null): void {
    for (const entry of [...this.pending.values()]) if (promptId === null || entry.promptId === promptId) this.finish(entry, { outcome: "cancelled" }, null, reason);
  }

  private finish(entry: PendingPermission, outcome: VoteOutcome, voterClientId: string | null, reason: CancelReason | null): void {
    const fields: EnvelopeFields = { ...(entry.promptId ? { promptId: entry.promptId } : {}), ...(voterClientId ? { originatorClientId: voterClientId } : {}) };
    this.ctx.publish(
      "permission_resolved",
      { requestId: entry.requestId, sessionId: this.ctx.sessionId, outcome, ...(voterClientId ? { voterClientId } : {}), ...(reason && reason !== "vote" ? { reason } : {}) },
      fields,
    );
    entry.settle({ outcome: outcome.outcome === "selected" ? { outcome: "selected", optionId: outcome.optionId } : { outcome: "cancelled" } }, reason);
  }

  /** The request's electorate members that can still vote. */
  private present(entry: PendingPermission): string[] {
    return entry.policy.electorate.filter((id) => this.ctx.canVote(id));
  }

  /** Of `present`, those that count towards the quorum (they have acted). */
  private counting(present: readonly string[]): string[] {
    return present.filter((id) => this.ctx.isActing(id));
  }

}

function voterFields(voter: Voter): EnvelopeFields {
  return voter.clientId ? { originatorClientId: voter.clientId } : {};
}
