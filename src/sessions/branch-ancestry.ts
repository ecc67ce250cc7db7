/**
 * Where a seeded branch's conversation comes from beyond its own journal: its ancestors', each up
 * to the turn its child branched from (the catalog's `parentSessionId` / `parentPromptId`,
 * migration 9). A branch's own journal starts empty, so without them a branch of a branch, or a
 * branch reopened after a restart, would be seeded with its own turns only.
 *
 * Bounded: at most MAX_ANCESTORS generations are read (the seed keeps only its newest
 * SEED_MAX_BYTES anyway), a cycle stops the walk, and so does an ancestor whose catalog row or
 * turns cannot be read or no longer hold the branch's turn.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { Store } from "../store/store.ts";
import type { SeedSource } from "./restore-seed.ts";
import { turnStarts } from "./turn-index.ts";

export const MAX_ANCESTORS = 8;

/** The seed sources of `sessionId`'s ancestors, oldest first (empty for a session that is no branch). */
export function branchAncestry(store: Store | null, sessionId: string): SeedSource[] {
  if (store === null) return [];
  const sources: SeedSource[] = [];
  const seen = new Set([sessionId]);
  try {
    let row = store.session(sessionId);
    while (row?.parentSessionId && sources.length < MAX_ANCESTORS && !seen.has(row.parentSessionId)) {
      const parent = row.parentSessionId;
      seen.add(parent);
      const turns = turnStarts(store, parent);
      // Branched before the parent's first turn: nothing of the parent's belongs to the branch.
      const at = row.parentPromptId === null ? -1 : turns.findIndex((t) => t.promptId === row!.parentPromptId);
      if (row.parentPromptId !== null && at < 0) break;
      sources.unshift({ sessionId: parent, before: at < 0 ? (turns[0]?.position ?? 0) : (turns[at + 1]?.position ?? null) });
      row = store.session(parent);
    }
  } catch (error) {
    // A catalog or journal that cannot be read (503, 413): the generations found so far are kept.
    if (!(error instanceof DaemonError)) throw error;
  }
  return sources;
}
