/**
 * The `errorKind`s an agent may name in a failed prompt's error data, passed on in `turn_error` (any
 * other value is dropped). `output_too_large`: the model's reply passed the built-in agent's bounds
 * (`src/builtin-agent/model/model-round.ts`). Apart from the event schemas (`event-schemas.ts`),
 * which only the OpenAPI document loads.
 */
export const AGENT_TURN_ERROR_KINDS = ["auth_env_error", "model_stream_interrupted", "blocked_egress", "protocol_error", "init_timeout", "output_too_large"] as const;
