/**
 * Journal (issue 12), in process on the sources' own store and event bus (no HTTP, no agent: the
 * figures are the store's):
 * - event throughput with journaling on and off in the same run, rounds interleaved: one bus, one
 *   subscriber taking everything, a burst of `session_update` events the size of a streamed chunk,
 *   timed from the first publish until the subscriber has the last one (with the journal, a frame
 *   reaches it only once committed);
 * - the journal read a `load` answers with, for an 8000-event session;
 * - one page (100) of the session list out of 10,000 persisted sessions, first and deep pages.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventBus, type EventJournal } from "../src/events/event-bus.ts";
import { Store } from "../src/store/store.ts";
import { median } from "./lib/stats.ts";
import { fmt, table } from "./lib/table.ts";

export const JOURNAL_SETTINGS = {
  full: { events: 20_000, rounds: 7, loads: 30, listPages: 30 },
  quick: { events: 5_000, rounds: 3, loads: 10, listPages: 10 },
};

const LOAD_EVENTS = 8000;
const LIST_SESSIONS = 10_000;
const PAGE = 100;
/** The replay bounds of a default daemon (`--max-journal-events`, `--max-journal-bytes`). */
const REPLAY_EVENTS = 10_000;
const REPLAY_BYTES = 8 * 1024 * 1024;

export interface JournalResult {
  readonly events: number;
  readonly rounds: number;
  readonly offEventsPerSecond: number;
  readonly onEventsPerSecond: number;
  /** 1 − on/off: the share of throughput journaling costs (target ≤ 0.10). */
  readonly cost: number;
  readonly loadReadP50Ms: number;
  readonly listFirstPageP50Ms: number;
  readonly listDeepPageP50Ms: number;
}

const update = (i: number) => ({ sessionId: "bench", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i} of a streamed answer, about as long as a model's token burst` } } });

/** Events per second through a bus (optionally journaled) to one subscriber that takes everything. */
async function burst(events: number, journal: EventJournal | undefined): Promise<number> {
  const bus = new EventBus({ ringSize: 8000, maxSubscribers: 4, ...(journal ? { journal } : {}) });
  const sub = bus.subscribe({ lastEventId: null, epoch: null, maxQueued: 2048 })!;
  let received = 0;
  const reading = (async () => {
    while (received < events) received += (await sub.next())?.length ?? 0;
  })();
  const started = performance.now();
  // Published in slices with a turn of the event loop between them, as an agent's stream arrives.
  for (let i = 0; i < events; i++) {
    bus.publish("session_update", update(i));
    if (i % 50 === 49) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await reading;
  const seconds = (performance.now() - started) / 1000;
  sub.cancel();
  return events / seconds;
}

function journalOf(store: Store, sessionId: string): EventJournal {
  return { record: (epoch, frame, durable) => store.record({ sessionId, epoch, eventId: frame.id!, type: frame.type, envelope: frame.json, timestamp: Date.now() }, durable) };
}

export async function measureJournal(options: { quick: boolean; progress: (text: string) => void }): Promise<JournalResult> {
  const settings = JOURNAL_SETTINGS[options.quick ? "quick" : "full"];
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-journal-"));
  const store = new Store(dir);
  try {
    options.progress(`journal: ${settings.rounds} rounds of ${settings.events} events, journal off and on…`);
    const off: number[] = [];
    const on: number[] = [];
    await burst(1000, undefined);
    await burst(1000, journalOf(store, "warm-up"));
    for (let round = 0; round < settings.rounds; round++) {
      off.push(await burst(settings.events, undefined));
      on.push(await burst(settings.events, journalOf(store, `burst-${round}`)));
    }

    options.progress(`journal: load read of a ${LOAD_EVENTS}-event session…`);
    const loaded = journalOf(store, "load");
    await burst(LOAD_EVENTS, loaded);
    store.flush();
    const loads: number[] = [];
    for (let i = 0; i < settings.loads; i++) {
      const started = performance.now();
      const { records } = store.recent("load", REPLAY_EVENTS, REPLAY_BYTES);
      const replay = records.map((r) => JSON.parse(r.envelope) as unknown);
      loads.push(performance.now() - started);
      if (replay.length !== LOAD_EVENTS) throw new Error(`load read ${replay.length} events, expected ${LOAD_EVENTS}`);
    }

    options.progress(`journal: list pages out of ${LIST_SESSIONS} sessions…`);
    const workspace = "/bench/workspace";
    for (let i = 0; i < LIST_SESSIONS; i++) store.sessionStarted({ id: `s-${i}`, workspace, createdAt: i, agentSessionId: `s-${i}`, profile: "generic" });
    const first: number[] = [];
    const deep: number[] = [];
    for (let i = 0; i < settings.listPages; i++) {
      let started = performance.now();
      let page = store.sessions(workspace, false, PAGE + 1, null);
      first.push(performance.now() - started);
      for (let n = 0; n < 50 && page.length > PAGE; n++) {
        const last = page[PAGE - 1]!;
        started = performance.now();
        page = store.sessions(workspace, false, PAGE + 1, { updatedAt: last.updatedAt, id: last.id });
        if (n === 49) deep.push(performance.now() - started);
      }
    }
    const offRate = median(off);
    const onRate = median(on);
    return {
      events: settings.events,
      rounds: settings.rounds,
      offEventsPerSecond: offRate,
      onEventsPerSecond: onRate,
      cost: 1 - onRate / offRate,
      loadReadP50Ms: median(loads),
      listFirstPageP50Ms: median(first),
      listDeepPageP50Ms: median(deep),
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function renderJournal(j: JournalResult): string {
  return [
    `Journal (in process, sources' store and bus): ${j.events} events per burst to one subscriber, ${j.rounds} rounds, off and on interleaved`,
    table(
      ["journal off ev/s", "journal on ev/s", "cost (≤ 10%)", `load read, ${LOAD_EVENTS} events (≤ 50 ms)`, `list page of ${PAGE} / ${LIST_SESSIONS} (≤ 20 ms)`, "51st page"],
      [[fmt.int(Math.round(j.offEventsPerSecond)), fmt.int(Math.round(j.onEventsPerSecond)), `${(j.cost * 100).toFixed(1)}%`, fmt.ms(j.loadReadP50Ms), fmt.ms(j.listFirstPageP50Ms), fmt.ms(j.listDeepPageP50Ms)]],
    ),
  ].join("\n");
}
