/** The daemon client SDK: typed REST calls and a resuming event stream (no DOM dependency). */
export { createClient, type ClientOptions, type DaemonClient } from "./client.ts";
export { DaemonApiError } from "./errors.ts";
export { SseParser, MAX_FRAME_CHARS, type SseFrame } from "./sse-parser.ts";
export { BACKOFF_BASE_MS, BACKOFF_MAX_MS, STALL_MS, type ConnectionState, type EventContext, type SubscribeOptions, type Subscription } from "./subscription.ts";
export * from "./types.ts";
export { confirmationFor } from "./workspace-calls.ts";
export * from "./workspace-types.ts";
export * from "./settings-types.ts";
export type * from "./organization-calls.ts";
export type * from "./rewind-calls.ts";
export type * from "./side-question-calls.ts";
export type * from "./branch-calls.ts";
export type * from "./auth-types.ts";
export { WORKFLOW_ACTIONS, type WebhookAnswer, type WebhookEvent, type WorkflowAction } from "./channel-calls.ts";
