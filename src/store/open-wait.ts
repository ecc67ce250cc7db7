/**
 * While the store's open of svc.db waits out another process's lock (a migration or the switch to
 * WAL met it, or a reopen after an idle close): what recording misses meanwhile, kept as the journal
 * writer keeps a gap (journal-writer.ts) and within the same bounds (the events counted into a
 * `JournalGap`, the catalog writes kept by key, the latest of a key standing for all), and the timer
 * that tries the open again with a growing backoff.
 */
import type { Catalog } from "./catalog.ts";
import { JournalGap } from "./journal-gap.ts";
import { busyRetryDelay, MAX_GAP_CHANGES, type JournalEntry } from "./journal-writer.ts";

export class OpenWait {
  private readonly gap = new JournalGap();
  private readonly changes = new Map<string, (catalog: Catalog) => void>();
  /** Keys for kept catalog writes given none (their own namespace: the writer's are `#n`). */
  private anonymous = 0;
  private retries = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** Counts a missed event; false past the gap's bounds (MAX_GAP_SESSIONS). */
  count(entry: JournalEntry): boolean {
    return this.gap.add(entry);
  }

  /** Counts a stop notice released ahead of the events it stands before (see `JournalGap.addAhead`); false as `count`. */
  countAhead(notice: JournalEntry): boolean {
    return this.gap.addAhead(notice);
  }

  /** Keeps a catalog write (`key`: see `JournalWriter.change`); false past MAX_GAP_CHANGES. */
  keep(action: (catalog: Catalog) => void, key = `open#${this.anonymous++}`): boolean {
    this.changes.set(key, action);
    return this.changes.size <= MAX_GAP_CHANGES;
  }

  /** What the writer starts with once the open went through: the gap, and the kept writes bound to `catalog`. */
  handOver(catalog: Catalog): { gap: JournalGap; changes: Map<string, () => void> } {
    return { gap: this.gap, changes: new Map([...this.changes].map(([key, action]) => [key, () => action(catalog)])) };
  }

  /** Tries `open` again after the next backoff step (never what keeps the process alive). */
  retry(open: () => void): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      open();
    }, busyRetryDelay(this.retries++));
    this.timer.unref();
  }

  /** No more tries. */
  end(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
