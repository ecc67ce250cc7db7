/**
 * The bytes of one agent's pending permission requests that the daemon holds, across all its
 * sessions. The ACP SDK keeps a request (its params included) until the daemon answers it, so the
 * channel bounds each request as it arrives (`permission-bounds.ts`), its tool call within
 * MAX_TOOL_CALL_BYTES or what is left of PENDING_PERMISSION_BYTES, whichever is less: once the
 * budget is spent, a request's tool call keeps little more than its identity and a note (it is still put to
 * the vote, with its options). Its bytes return to the budget when the daemon answers it, whoever
 * answers (a vote, a cancel, a refusal, the SDK's own error).
 *
 * So the held tool calls of one agent take at most PENDING_PERMISSION_BYTES, plus a small stub for
 * each request past it (each session holds at most MAX_PENDING of them: `permission-broker.ts`).
 * An agent that reuses the id of a pending request gets, at the answer to that id, the smallest
 * of its holdings back, so a quick answer to one cannot free what another still holds.
 */
import { boundPermissionParams, MAX_TOOL_CALL_BYTES } from "./permission-bounds.ts";

export const PENDING_PERMISSION_BYTES = 16 * 1024 * 1024;

type RequestId = string | number;

export class PermissionBudget {
  private readonly held = new Map<RequestId, number[]>();
  private used = 0;

  constructor(private readonly total = PENDING_PERMISSION_BYTES) {}

  /** Bytes held now. */
  get heldBytes(): number {
    return this.used;
  }

  /** A permission request `id` arrived with `params`: bounds them in place and holds their tool call's bytes. */
  admit(id: RequestId, params: Record<string, unknown>): void {
    const bytes = boundPermissionParams(params, Math.max(0, Math.min(MAX_TOOL_CALL_BYTES, this.total - this.used)));
    this.held.set(id, [...(this.held.get(id) ?? []), bytes]);
    this.used += bytes;
  }

  /** The daemon answered request `id` (a message to the agent with an id and no method). */
  answered(id: RequestId): void {
    const holdings = this.held.get(id);
    if (holdings === undefined) return;
    const smallest = Math.min(...holdings);
    holdings.splice(holdings.indexOf(smallest), 1);
    this.used -= smallest;
    if (holdings.length === 0) this.held.delete(id);
  }
}
