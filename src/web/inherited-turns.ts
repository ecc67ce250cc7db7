/**
 * A branch's inherited conversation: the daemon gives a branch a journal of its own that starts
 * empty (the parent's events stay in the parent's), so the chat view reads the parent's turns up to
 * the branch point (`parentPromptId`) from the parent's transcript, to show what the branch starts
 * from. Only the direct parent is read (a branch of a branch names its own parent in turn).
 *
 * Bound: at most MAX_BACKFILL_EVENTS events are read, in pages of PAGE; a longer parent history
 * gives up (the view says the turns could not be read).
 */
import type { EventEnvelope } from "../client/index.ts";
import { client } from "./app-state.ts";
import { MAX_BACKFILL_EVENTS } from "./live-session.ts";
import { TranscriptModel, type TranscriptSnapshot } from "./transcript-model.ts";

const PAGE = 500;

/** The event that ends the turn of `promptId` (complete or failed). */
const endsTurn = (event: EventEnvelope, promptId: string) => {
  if (event.type !== "turn_complete" && event.type !== "turn_error") return false;
  const data = (event.data ?? {}) as { promptId?: unknown };
  return (data.promptId ?? event.promptId) === promptId;
};

/** The parent's transcript up to the end of its turn `promptId`; null when that turn was not found within the bound. */
export async function inheritedTurns(parentId: string, promptId: string): Promise<TranscriptSnapshot | null> {
  const model = new TranscriptModel();
  let read = 0;
  let cursor: string | undefined;
  do {
    const page = await client.transcript(parentId, { limit: PAGE, cursor });
    for (const event of page.events) {
      model.apply(event, true);
      if (endsTurn(event, promptId)) return model.snapshot();
    }
    read += page.events.length;
    cursor = page.hasMore ? page.nextCursor : undefined;
  } while (cursor !== undefined && read < MAX_BACKFILL_EVENTS);
  return null;
}
