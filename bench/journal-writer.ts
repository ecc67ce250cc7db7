/**
 * The journal writer's own cost, in process (no daemon, no agent): CPU time (user + system, so it
 * holds up better than wall time on a shared machine) per journaled event, committed in batches of a
 * given size, interleaved rounds, medians, and the bytes stored per event (chunks, compressed once
 * that pays: src/store/journal-chunk.ts). The sizes bracket the daemon's: about 54 events per commit
 * at the fake agent's flat-out rate (one commit per event-loop turn), 1 for a trickle, 1000 for
 * what a wider batch window would give. The difference between them is what commits cost.
 *
 *   bun bench/journal-writer.ts [--rows N] [--rounds N]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/store/database.ts";
import { JournalWriter } from "../src/store/journal-writer.ts";
import { median } from "./lib/stats.ts";
import { table } from "./lib/table.ts";

const BATCHES = [1, 54, 1000] as const;

/** Words an answer is streamed in, picked pseudo-randomly (a repeated text would flatter compression). */
const WORDS = "the a of to in and is that for it as with on this be are by function return const value file line error test when if not from which type we will can should".split(" ");

/**
 * A streamed chunk's envelope as the daemon journals it (about 250 characters): a few tokens of
 * varying text, the session id, a prompt id and a timestamp, as the fake agent's `@stream` sends.
 */
function envelope(id: number): string {
  let seed = id * 2654435761;
  const words: string[] = [];
  for (let n = 3 + (id % 6); n > 0; n--) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    words.push(WORDS[seed % WORDS.length]!);
  }
  const update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${words.join(" ")} ` } };
  return JSON.stringify({ id, v: 1, type: "session_update", data: { sessionId: "0b7a6c1e-1111-4222-8333-944455556666", update }, promptId: "p-1", _meta: { serverTimestamp: 1_763_900_000_000 + id * 3 } });
}

/** CPU microseconds per event of `rows` events committed `batch` at a time, into a fresh database, and the bytes stored per event. */
function cpuPerRow(rows: number, batch: number, envelopes: readonly string[]): { cpu: number; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-writer-"));
  const db = openDatabase(dir);
  try {
    db.run("INSERT INTO sessions (id, workspace, created_at, updated_at, agent_session_id) VALUES ('s1', '/w', 1, 1, 'a1')");
    const writer = new JournalWriter(db, (error) => {
      throw error;
    });
    const started = process.cpuUsage();
    for (let i = 0; i < rows; i += batch) {
      for (let j = i; j < Math.min(rows, i + batch); j++) writer.append({ sessionId: "s1", epoch: "e1", eventId: j + 1, envelope: envelopes[j]!, timestamp: j }, () => {});
      writer.flush();
    }
    const used = process.cpuUsage(started);
    const stored = (db.query("SELECT SUM(length(CAST(body AS BLOB))) AS n FROM journal").get() as { n: number }).n;
    return { cpu: (used.user + used.system) / rows, bytes: stored / rows };
  } finally {
    db.close(false);
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { rows: { type: "string", default: "100000" }, rounds: { type: "string", default: "5" } } });
const rows = Number(values.rows);
const rounds = Number(values.rounds);
const envelopes = Array.from({ length: rows }, (_, i) => envelope(i + 1));
const samples = new Map<number, number[]>(BATCHES.map((b) => [b, []]));
const bytes = new Map<number, number>();
for (let round = 0; round < rounds; round++)
  for (const batch of BATCHES) {
    const measured = cpuPerRow(batch === 1 ? rows / 10 : rows, batch, envelopes);
    samples.get(batch)!.push(measured.cpu);
    bytes.set(batch, measured.bytes);
  }
const [one, tick, wide] = BATCHES.map((b) => median(samples.get(b)!));
const envelopeChars = envelopes.reduce((n, e) => n + e.length, 0) / envelopes.length;
console.log(
  `Journal writer, in process: CPU per event (user + system), ${rounds} rounds interleaved, medians; envelopes of ${envelopeChars.toFixed(0)} characters; load average ${(await import("node:os")).loadavg()[0]!.toFixed(2)}`,
);
console.log(
  table(
    ["events per commit", "CPU µs per event", "of which commit (vs 1000)", "bytes stored per event"],
    [
      ["1", one!.toFixed(2), `${(((one! - wide!) / one!) * 100).toFixed(0)}%`, bytes.get(1)!.toFixed(0)],
      ["54 (flat-out tick)", tick!.toFixed(2), `${(((tick! - wide!) / tick!) * 100).toFixed(0)}%`, bytes.get(54)!.toFixed(0)],
      ["1000", wide!.toFixed(2), "-", bytes.get(1000)!.toFixed(0)],
    ],
  ),
);
