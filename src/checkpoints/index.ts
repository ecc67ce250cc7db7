/**
 * The checkpoints subsystem's one entry seam (`sessions/checkpoint-seam.ts` imports it on a
 * session's first turn): file snapshots before each turn's changes, and the rewind that puts them
 * back. See `checkpoints.ts`.
 */
export { Checkpoints, type CheckpointOptions, type CheckpointStatus, type RewindPlan, type TurnView } from "./checkpoints.ts";
