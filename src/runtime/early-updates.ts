/**
 * Updates for session ids nobody has registered yet, held briefly: an agent may announce a new
 * session's commands before its `session/new` answer is processed. A session that registers takes
 * its updates, in arrival order.
 *
 * Bounds: at most EARLY_SESSIONS ids (a new id past that drops the oldest id and its updates),
 * EARLY_UPDATES updates per id (later ones for that id are dropped), and EARLY_BYTES in all,
 * measured as each update's serialized JSON length (an update past that drops the oldest held updates,
 * of any id, until it fits; one larger than EARLY_BYTES by itself is dropped). Every drop is
 * reported through `onDrop`, once per update.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";

export const EARLY_SESSIONS = 16;
export const EARLY_UPDATES = 64;
export const EARLY_BYTES = 8 * 1024 * 1024;

interface Held {
  readonly update: acp.SessionNotification;
  readonly bytes: number;
}

export type EarlyDropReason = "too_many_sessions" | "too_many_updates" | "too_many_bytes";

export class EarlyUpdates {
  /** Insertion order is arrival order of each id's first update (the eviction order of ids). */
  private readonly bySession = new Map<string, Held[]>();
  private bytes = 0;

  constructor(private readonly onDrop: (sessionId: string, reason: EarlyDropReason, bytes: number) => void) {}

  /** Bytes held now (for tests and diagnostics). */
  get heldBytes(): number {
    return this.bytes;
  }

  hold(update: acp.SessionNotification): void {
    const id = update.sessionId;
    const bytes = JSON.stringify(update).length;
    if (bytes > EARLY_BYTES) return this.onDrop(id, "too_many_bytes", bytes);
    if ((this.bySession.get(id)?.length ?? 0) >= EARLY_UPDATES) return this.onDrop(id, "too_many_updates", bytes);
    while (this.bytes + bytes > EARLY_BYTES) this.dropOldestUpdate();
    let held = this.bySession.get(id);
    if (!held) {
      if (this.bySession.size >= EARLY_SESSIONS) this.dropSession(this.bySession.keys().next().value!);
      this.bySession.set(id, (held = []));
    }
    held.push({ update, bytes });
    this.bytes += bytes;
  }

  /** The updates held for `sessionId`, oldest first; they are no longer held. */
  take(sessionId: string): acp.SessionNotification[] {
    return this.remove(sessionId).map(({ update }) => update);
  }

  clear(): void {
    this.bySession.clear();
    this.bytes = 0;
  }

  private remove(sessionId: string): Held[] {
    const held = this.bySession.get(sessionId) ?? [];
    this.bySession.delete(sessionId);
    for (const { bytes } of held) this.bytes -= bytes;
    return held;
  }

  private dropSession(sessionId: string): void {
    for (const { bytes } of this.remove(sessionId)) this.onDrop(sessionId, "too_many_sessions", bytes);
  }

  /** Drops the first update of the oldest id (no id is held empty); an id left with none is forgotten. */
  private dropOldestUpdate(): void {
    const [id, held] = this.bySession.entries().next().value!;
    const oldest = held.shift()!;
    if (held.length === 0) this.bySession.delete(id);
    this.bytes -= oldest.bytes;
    this.onDrop(id, "too_many_bytes", oldest.bytes);
  }
}
