/**
 * The delivery ids already taken, so a webhook sender's retry (or a replayed request) prompts a
 * session at most once. Bounded by count (oldest forgotten first) and kept in
 * `<data dir>/webhook-deliveries.json`, rewritten whole (temp file, renamed over) after each new id,
 * so a restart does not reopen the window. A file that is missing, too big or unreadable starts the
 * log empty: the log narrows replays, and losing it must not stop the daemon.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Ids remembered; a sender's retries come within hours, long before this many others arrive. */
export const MAX_DELIVERIES = 4096;
/** Longest delivery id accepted (characters); GitHub's are 36, GitLab's 36. */
export const MAX_DELIVERY_ID_LENGTH = 200;
/**
 * Largest log file read back (bytes): what MAX_DELIVERIES keys can take at worst, so a full log is
 * always read back. A key is `["<channel>","<source>","<id>"]` (names of at most 128 plain
 * characters), written as a JSON string: an id's character takes at most 7 bytes there (a control
 * character, escaped twice), the rest of a key at most 2 × 128 + 32.
 */
const MAX_FILE_BYTES = MAX_DELIVERIES * (2 * 128 + 32 + 7 * MAX_DELIVERY_ID_LENGTH);

export class DeliveryLog {
  private readonly file: string;
  /** Insertion order = age. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly dataDir: string,
    private readonly max: number = MAX_DELIVERIES,
  ) {
    this.file = join(dataDir, "webhook-deliveries.json");
    for (const key of this.load().slice(-max)) this.seen.add(key);
  }

  private load(): string[] {
    try {
      if (statSync(this.file).size > MAX_FILE_BYTES) return [];
      const doc: unknown = JSON.parse(readFileSync(this.file, "utf8"));
      const ids = (doc as { deliveries?: unknown })?.deliveries;
      return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
    } catch {
      return [];
    }
  }

  /** Takes `key` unless it was taken before: true when it is new (and is now remembered). */
  claim(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  /** Forgets `key` again (its prompt was not admitted, so the sender's retry must get through). */
  release(key: string): void {
    this.seen.delete(key);
  }

  /** Writes the log to disk; a failure leaves the previous file (and is the caller's to log). */
  persist(): void {
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ v: 1, deliveries: [...this.seen] }), { mode: 0o600 });
    renameSync(temp, this.file);
  }

  get size(): number {
    return this.seen.size;
  }
}
