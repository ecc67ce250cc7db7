/**
 * Conversations on disk, so `session/load` and `session/resume` work after the agent (or the
 * daemon) restarts: `<data dir>/agent/sessions/<session id>.jsonl`, owner-only, one JSON line per
 * message after a first line `{v: 1, cwd}`. A session is written only once it has a message (as the
 * reference agent does, an unprompted session cannot be loaded).
 *
 * Bounds: a file is compacted (rewritten atomically with the session's kept history) when an append
 * would take it past COMPACT_AFTER_LINES lines or COMPACT_AFTER_BYTES bytes written since its last
 * rewrite, so it follows the in-memory history bounds (`agent-session.ts`): at most the kept history
 * (MAX_HISTORY_BYTES, plus the one round that may pass it before the turn ends, see
 * `model-round.ts`) plus COMPACT_AFTER_BYTES, well under MAX_FILE_BYTES. A file larger than
 * MAX_FILE_BYTES is refused on load. A torn last line (a crash mid-append) is skipped on load.
 * A failed write is reported on stderr and the conversation goes on in memory.
 */
import type { LanguageModelV4Message } from "@ai-sdk/provider";
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { utf8Bytes } from "./acp-bounds.ts";
import { MAX_HISTORY_BYTES, MAX_HISTORY_MESSAGES } from "./agent-session.ts";

export const COMPACT_AFTER_LINES = 2 * MAX_HISTORY_MESSAGES;
export const COMPACT_AFTER_BYTES = MAX_HISTORY_BYTES;
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** The ids this agent mints (UUIDs); anything else never names a file. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface StoredConversation {
  readonly cwd: string;
  readonly messages: LanguageModelV4Message[];
}

export class ConversationStore {
  /** Lines, and bytes of appended lines, written per session file since it was created or compacted. */
  private readonly lines = new Map<string, number>();
  private readonly appended = new Map<string, number>();

  constructor(private readonly dir: string) {}

  private file(sessionId: string): string {
    return join(this.dir, `${sessionId}.jsonl`);
  }

  /** Appends a message (`line`: its JSON); `history` is what a compaction keeps. */
  append(sessionId: string, cwd: string, line: string, history: readonly LanguageModelV4Message[]): void {
    try {
      const written = this.lines.get(sessionId) ?? 0;
      const bytes = (this.appended.get(sessionId) ?? 0) + utf8Bytes(line) + 1;
      if (written === 0 || written >= COMPACT_AFTER_LINES || bytes > COMPACT_AFTER_BYTES) return this.rewrite(sessionId, cwd, history);
      appendFileSync(this.file(sessionId), `${line}\n`, { mode: 0o600 });
      this.lines.set(sessionId, written + 1);
      this.appended.set(sessionId, bytes);
    } catch (err) {
      process.stderr.write(`svc --acp: cannot save session ${sessionId}: ${(err as Error).message}\n`);
    }
  }

  /** Saves `history` in place of the stored conversation (after a compaction or a rewind). */
  replace(sessionId: string, cwd: string, history: readonly LanguageModelV4Message[]): void {
    try {
      this.rewrite(sessionId, cwd, history);
    } catch (err) {
      process.stderr.write(`svc --acp: cannot save session ${sessionId}: ${(err as Error).message}\n`);
    }
  }

  private rewrite(sessionId: string, cwd: string, history: readonly LanguageModelV4Message[]): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = `${this.file(sessionId)}.tmp`;
    writeFileSync(temp, [JSON.stringify({ v: 1, cwd }), ...history.map((m) => JSON.stringify(m))].join("\n") + "\n", { mode: 0o600 });
    renameSync(temp, this.file(sessionId));
    this.lines.set(sessionId, history.length + 1);
    this.appended.set(sessionId, 0);
  }

  /** The stored conversation of `sessionId`, or null when there is none (or the id is not ours). */
  load(sessionId: string): StoredConversation | null {
    if (!SESSION_ID.test(sessionId)) return null;
    let text: string;
    try {
      if (statSync(this.file(sessionId)).size > MAX_FILE_BYTES) throw new Error(`the saved conversation is larger than ${MAX_FILE_BYTES} bytes`);
      text = readFileSync(this.file(sessionId), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    const [head, ...rest] = text.split("\n").filter((line) => line !== "");
    const meta = JSON.parse(head ?? "{}") as { v?: number; cwd?: string };
    if (meta.v !== 1 || typeof meta.cwd !== "string") return null;
    const messages: LanguageModelV4Message[] = [];
    for (const line of rest) {
      try {
        messages.push(JSON.parse(line) as LanguageModelV4Message);
      } catch {
        break; // a torn last line
      }
    }
    this.lines.set(sessionId, rest.length + 1);
    // What was loaded counts as appended: the next compaction is not put off by a large file.
    this.appended.set(sessionId, utf8Bytes(text));
    return { cwd: meta.cwd, messages };
  }
}
