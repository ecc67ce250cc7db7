/**
 * An agent's request the daemon refuses on its merits (not a failure): a handler throws it, and the
 * channel answers the agent with this JSON-RPC error (`acp-channel.ts`, where the SDK's
 * RequestError is at hand) instead of the SDK's generic internal error.
 */
export class AgentRequestRefused extends Error {
  override readonly name = "AgentRequestRefused";
  constructor(
    /** The JSON-RPC error code, e.g. -32602 (invalid params). */
    readonly rpcCode: number,
    message: string,
    readonly data: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** JSON-RPC "invalid params". */
export const INVALID_PARAMS = -32602;
