/**
 * Journal (issue 12), through the compiled daemon with the pre-bundled fake agent as its child:
 * - event throughput with journaling on and off in the same run, rounds interleaved: two daemons,
 *   one session each, one SSE subscriber each; a `@stream N` prompt, timed from just before the POST
 *   until the subscriber has its `turn_complete` (with the journal, a frame reaches it only once
 *   committed). Journaling is off in a daemon whose data dir another owner holds (the bench takes
 *   the data-dir lock first, `src/store/data-dir-lock.ts`): its store records nothing and releases
 *   every event at once, the one difference between the two;
 * - `POST /session/:id/load` of a closed 8000-event session (the whole round trip: restore through
 *   the agent plus the journal replay), closed again between runs;
 * - one page (100) of the session list out of 10,000 persisted sessions, first and 51st page;
 * - idle RSS after the same requests (a list page and a transcript page) and an idle period past the
 *   store's idle close (`STORE_IDLE_CLOSE_MS`), on three data dirs: one another owner holds (the
 *   daemon never opens a database: the floor), an empty one, and one whose database holds 1000
 *   sessions / 100k events;
 * - event-loop responsiveness while a 100 MB journal is deleted: the slowest `GET /health` while
 *   the compaction runs.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { lockDataDir } from "../src/store/data-dir-lock.ts";
import { Store, STORE_IDLE_CLOSE_MS } from "../src/store/store.ts";
import { workspaceId } from "../src/workspace/workspace-id.ts";
import { stopAgentDaemon, type AgentDaemon } from "./lib/agent-daemon.ts";
import { KeepAliveClient } from "./lib/keep-alive-client.ts";
import { residentMemory, type Resident } from "./lib/rss.ts";
import { scratchDir } from "./lib/procs.ts";
import { launch } from "./lib/servers.ts";
import { SseSubscriber } from "./lib/sse-subscriber.ts";
import { median } from "./lib/stats.ts";
import { fmt, table } from "./lib/table.ts";

export const JOURNAL_SETTINGS = {
  full: { events: 20_000, rounds: 7, loads: 30, listPages: 30, rssRuns: 3 },
  quick: { events: 5_000, rounds: 3, loads: 10, listPages: 10, rssRuns: 1 },
};

const LOAD_EVENTS = 8000;
const LIST_SESSIONS = 10_000;
const PAGE = 100;
const RSS_SESSIONS = 1000;
const RSS_EVENTS_PER_SESSION = 100;
/** Rows of ~4 KB in the journal deleted while /health is polled: ~100 MB. */
const DELETE_ROWS = 25_000;
const WAIT_MS = 60_000;

export interface JournalCost {
  readonly events: number;
  readonly rounds: number;
  readonly offEventsPerSecond: number;
  readonly onEventsPerSecond: number;
  /** 1 − on/off: the share of throughput journaling costs (target ≤ 0.10). */
  readonly cost: number;
}

export interface JournalResult extends JournalCost {
  readonly loadP50Ms: number;
  readonly loadReplayed: number;
  readonly listFirstPageP50Ms: number;
  readonly listDeepPageP50Ms: number;
  readonly idleRssNoDbMb: number;
  readonly idleRssEmptyMb: number;
  readonly idleRssWithDbMb: number;
  /** The same three, anonymous pages only (the file-backed rest is mostly the executable's code). */
  readonly idleAnonNoDbMb: number;
  readonly idleAnonEmptyMb: number;
  readonly idleAnonWithDbMb: number;
  readonly deleteHealthMaxMs: number;
  readonly deleteHealthRequests: number;
}

export interface JournalOptions {
  readonly svc: readonly string[];
  /** The pre-bundled fake agent, and the HOME its daemons get. */
  readonly agentEntry: string;
  readonly home: string;
  readonly quick: boolean;
  readonly progress: (text: string) => void;
}

/** `svc serve` with the fake agent on a given data dir (SVC_HOME) and workspace. */
async function startDaemon(options: JournalOptions, svcHome: string, workspace = scratchDir("ws")): Promise<AgentDaemon> {
  const launched = await launch({
    name: "svc serve (fake agent)",
    cmd: [...options.svc, "serve", "--port", "0", "--workspace", workspace, "--max-sessions", "0", "--max-total-sessions", "0"],
    env: { PATH: process.env.PATH ?? "", HOME: options.home, SVC_HOME: svcHome, SVC_CLI_ENTRY: options.agentEntry },
    stderrPath: join(scratchDir("log"), "stderr.log"),
  });
  return { ...launched, workspace };
}

async function request(client: KeepAliveClient, method: string, path: string, body?: unknown): Promise<{ ms: number; json: any }> {
  const answer = await client.request(method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return { ms: answer.answeredAt - answer.sentAt, json: answer.text === "" ? null : JSON.parse(answer.text) };
}

/** One session with its event stream open, on which `@stream` prompts are timed to their `turn_complete`. */
class StreamingSession {
  private turns = 0;
  private constructor(
    private readonly client: KeepAliveClient,
    private readonly sub: SseSubscriber,
    readonly sessionId: string,
  ) {}

  static async open(daemon: AgentDaemon): Promise<StreamingSession> {
    const client = await KeepAliveClient.connect(daemon.url);
    const { json } = await request(client, "POST", "/session", {});
    const sub = await SseSubscriber.open(daemon.url, `/session/${encodeURIComponent(json.sessionId)}/events`, { watch: ["turn_complete"] });
    return new StreamingSession(client, sub, json.sessionId);
  }

  /** Events per second of one `@stream chunks` turn, from the POST to the subscriber's `turn_complete`. */
  async stream(chunks: number): Promise<number> {
    const answer = await this.client.request("POST", `/session/${encodeURIComponent(this.sessionId)}/prompt`, { prompt: [{ type: "text", text: `@stream ${chunks}` }] });
    if (answer.status !== 202) throw new Error(`POST /prompt answered ${answer.status}: ${answer.text}`);
    const doneAt = await this.sub.waitFor("turn_complete", ++this.turns, WAIT_MS);
    return chunks / ((doneAt - answer.sentAt) / 1000);
  }

  close(): void {
    this.sub.close();
    this.client.close();
  }
}

async function measureThroughput(options: JournalOptions, events: number, rounds: number): Promise<{ off: number; on: number }> {
  const offHome = scratchDir("svc-home-journal-off");
  // Held for the off daemon's life: it finds its data dir owned, so its store records nothing.
  const lock = lockDataDir(offHome);
  const onDaemon = await startDaemon(options, scratchDir("svc-home-journal-on"));
  const offDaemon = await startDaemon(options, offHome);
  try {
    const on = await StreamingSession.open(onDaemon);
    const off = await StreamingSession.open(offDaemon);
    await on.stream(1000);
    await off.stream(1000);
    const offRates: number[] = [];
    const onRates: number[] = [];
    for (let round = 0; round < rounds; round++) {
      offRates.push(await off.stream(events));
      onRates.push(await on.stream(events));
    }
    on.close();
    off.close();
    return { off: median(offRates), on: median(onRates) };
  } finally {
    await stopAgentDaemon(onDaemon);
    await stopAgentDaemon(offDaemon);
    lock.release();
  }
}

async function measureLoad(options: JournalOptions, loads: number): Promise<{ p50Ms: number; replayed: number }> {
  const daemon = await startDaemon(options, scratchDir("svc-home-load"));
  try {
    const session = await StreamingSession.open(daemon);
    await session.stream(LOAD_EVENTS);
    session.close();
    const client = await KeepAliveClient.connect(daemon.url);
    const path = `/session/${encodeURIComponent(session.sessionId)}`;
    await request(client, "DELETE", path);
    const samples: number[] = [];
    let replayed = 0;
    // One warm-up load, then the timed ones; each closed again (the persisted session stays).
    for (let i = 0; i <= loads; i++) {
      const { ms, json } = await request(client, "POST", `${path}/load`, {});
      replayed = (json.compactedReplay as unknown[] | undefined)?.length ?? 0;
      if (i > 0) samples.push(ms);
      await request(client, "DELETE", path);
    }
    client.close();
    if (replayed < LOAD_EVENTS) throw new Error(`load replayed ${replayed} events, expected at least ${LOAD_EVENTS}`);
    return { p50Ms: median(samples), replayed };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

/** A data dir whose catalog holds `sessions` sessions of `workspace`, each with `events` journaled events (written by the sources' store). */
function populate(svcHome: string, workspace: string, sessions: number, events: number): void {
  const store = new Store(svcHome);
  const update = (i: number) => JSON.stringify({ id: i, type: "session_update", data: { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i} of a streamed answer` } } } });
  for (let s = 0; s < sessions; s++) {
    const id = `bench-${s}`;
    store.sessionStarted({ id, workspace, createdAt: s, agentSessionId: id, profile: "generic" });
    for (let e = 1; e <= events; e++) store.record({ sessionId: id, epoch: "bench", eventId: e, envelope: update(e), timestamp: s }, () => {});
    store.flush();
    store.sessionEnded(id, "closed");
  }
  store.close();
}

async function measureList(options: JournalOptions, pages: number): Promise<{ firstMs: number; deepMs: number }> {
  const svcHome = scratchDir("svc-home-list");
  const workspace = scratchDir("ws");
  populate(svcHome, workspace, LIST_SESSIONS, 0);
  const daemon = await startDaemon(options, svcHome, workspace);
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    const list = `/workspace/${workspaceId(workspace)}/sessions?size=${PAGE}`;
    const first: number[] = [];
    const deep: number[] = [];
    for (let i = 0; i <= pages; i++) {
      let page = await request(client, "GET", list);
      if (i > 0) first.push(page.ms);
      if ((page.json.sessions as unknown[]).length !== PAGE) throw new Error(`a list page holds ${page.json.sessions.length} sessions, expected ${PAGE}`);
      for (let n = 0; n < 50; n++) page = await request(client, "GET", `${list}&cursor=${encodeURIComponent(page.json.nextCursor)}`);
      if (i > 0) deep.push(page.ms);
    }
    client.close();
    return { firstMs: median(first), deepMs: median(deep) };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

/** Idle VmRSS of a daemon on `svcHome` after a list page, a transcript page and a settle past the store's idle close. */
async function idleRss(options: JournalOptions, svcHome: string, workspace: string): Promise<Resident> {
  const daemon = await startDaemon(options, svcHome, workspace);
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    for (let i = 0; i < 20; i++) for (const path of ["/health", "/capabilities"]) await request(client, "GET", path);
    // 503 where another daemon owns the data dir, 404 where the session does not exist: the routes' code runs all the same.
    await client.request("GET", `/workspace/${workspaceId(workspace)}/sessions?size=${PAGE}`);
    await client.request("GET", "/session/bench-0/transcript?limit=100");
    client.close();
    await Bun.sleep(STORE_IDLE_CLOSE_MS + 1000);
    const memory = residentMemory(daemon.proc.pid);
    if (memory === null) throw new Error("cannot read VmRSS from /proc (not Linux?)");
    return memory;
  } finally {
    await stopAgentDaemon(daemon);
  }
}

async function measureIdleRss(options: JournalOptions, runs: number): Promise<{ noDb: Resident; empty: Resident; withDb: Resident }> {
  const fullHome = scratchDir("svc-home-rss");
  const workspace = scratchDir("ws");
  populate(fullHome, workspace, RSS_SESSIONS, RSS_EVENTS_PER_SESSION);
  const lockedHome = scratchDir("svc-home-rss-locked");
  const lock = lockDataDir(lockedHome);
  const samples = { noDb: [] as Resident[], empty: [] as Resident[], withDb: [] as Resident[] };
  try {
    for (let run = 0; run < runs; run++) {
      samples.noDb.push(await idleRss(options, lockedHome, workspace));
      samples.empty.push(await idleRss(options, scratchDir("svc-home-rss-empty"), workspace));
      samples.withDb.push(await idleRss(options, fullHome, workspace));
    }
  } finally {
    lock.release();
  }
  const med = (all: Resident[]): Resident => ({ rssMb: median(all.map((m) => m.rssMb)), anonMb: median(all.map((m) => m.anonMb)), fileMb: median(all.map((m) => m.fileMb)) });
  return { noDb: med(samples.noDb), empty: med(samples.empty), withDb: med(samples.withDb) };
}

async function measureDeleteLag(options: JournalOptions): Promise<{ maxMs: number; requests: number }> {
  const svcHome = scratchDir("svc-home-delete");
  const workspace = scratchDir("ws");
  populate(svcHome, workspace, 1, 0);
  const db = new Database(join(svcHome, "svc.db"));
  // The journal's keys for the session id and the epoch `bench` (schema 4), then the rows (one-event chunks as text, schema 5).
  db.run("INSERT OR IGNORE INTO journal_sessions (id) VALUES ('bench-0')");
  db.run("INSERT OR IGNORE INTO journal_epochs (session, epoch) SELECT key, 'bench' FROM journal_sessions WHERE id = 'bench-0'");
  db.query(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
     INSERT INTO journal (session, epoch, first_event_id, count, chars, encoding, body)
     SELECT s.key, e.key, i, 1, length(envelope), 0, envelope
     FROM (SELECT i, printf('{"id":%d,"pad":"%s"}', i, replace(hex(zeroblob(2000)), '0', 'x')) AS envelope FROM n),
       journal_sessions s JOIN journal_epochs e ON e.session = s.key AND e.epoch = 'bench' WHERE s.id = 'bench-0'`,
  ).run({ rows: DELETE_ROWS });
  db.close();
  const daemon = await startDaemon(options, svcHome, workspace);
  try {
    const client = await KeepAliveClient.connect(daemon.url);
    const health = await KeepAliveClient.connect(daemon.url);
    await request(client, "GET", `/workspace/${workspaceId(workspace)}/sessions`);
    const deleting = request(client, "POST", "/sessions/delete", { sessionIds: ["bench-0"] });
    const free = () => {
      const reader = new Database(join(svcHome, "svc.db"), { readonly: true });
      try {
        const rows = (reader.query("SELECT COUNT(*) AS n FROM journal").get() as { n: number }).n;
        return rows + (reader.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
      } finally {
        reader.close();
      }
    };
    let maxMs = 0;
    let requests = 0;
    const deadline = performance.now() + WAIT_MS;
    // /health on its own connection until the delete has answered and the compaction is done.
    for (let done = false; !done && performance.now() < deadline; ) {
      maxMs = Math.max(maxMs, (await request(health, "GET", "/health")).ms);
      requests++;
      done = Bun.peek.status(deleting) === "fulfilled" && free() === 0;
    }
    await deleting;
    client.close();
    health.close();
    return { maxMs, requests };
  } finally {
    await stopAgentDaemon(daemon);
  }
}

/** Only the throughput with journaling on and off (what `--quick` runs of this section). */
export async function measureJournalCost(options: JournalOptions): Promise<JournalCost> {
  const settings = JOURNAL_SETTINGS[options.quick ? "quick" : "full"];
  options.progress(`journal: ${settings.rounds} rounds of @stream ${settings.events}, journal off and on, through two daemons…`);
  const rates = await measureThroughput(options, settings.events, settings.rounds);
  return { events: settings.events, rounds: settings.rounds, offEventsPerSecond: rates.off, onEventsPerSecond: rates.on, cost: 1 - rates.on / rates.off };
}

export async function measureJournal(options: JournalOptions): Promise<JournalResult> {
  const settings = JOURNAL_SETTINGS[options.quick ? "quick" : "full"];
  options.progress(`journal: ${settings.rounds} rounds of @stream ${settings.events}, journal off and on, through two daemons…`);
  const rates = await measureThroughput(options, settings.events, settings.rounds);
  options.progress(`journal: load of a closed ${LOAD_EVENTS}-event session, ${settings.loads} runs…`);
  const load = await measureLoad(options, settings.loads);
  options.progress(`journal: list pages out of ${LIST_SESSIONS} persisted sessions…`);
  const list = await measureList(options, settings.listPages);
  options.progress(`journal: idle RSS, no database / empty / ${RSS_SESSIONS} sessions and ${RSS_SESSIONS * RSS_EVENTS_PER_SESSION} events, ${settings.rssRuns} run(s)…`);
  const rss = await measureIdleRss(options, settings.rssRuns);
  options.progress("journal: /health while a 100 MB journal is deleted…");
  const lag = await measureDeleteLag(options);
  return {
    events: settings.events,
    rounds: settings.rounds,
    offEventsPerSecond: rates.off,
    onEventsPerSecond: rates.on,
    cost: 1 - rates.on / rates.off,
    loadP50Ms: load.p50Ms,
    loadReplayed: load.replayed,
    listFirstPageP50Ms: list.firstMs,
    listDeepPageP50Ms: list.deepMs,
    idleRssNoDbMb: rss.noDb.rssMb,
    idleRssEmptyMb: rss.empty.rssMb,
    idleRssWithDbMb: rss.withDb.rssMb,
    idleAnonNoDbMb: rss.noDb.anonMb,
    idleAnonEmptyMb: rss.empty.anonMb,
    idleAnonWithDbMb: rss.withDb.anonMb,
    deleteHealthMaxMs: lag.maxMs,
    deleteHealthRequests: lag.requests,
  };
}

export function renderJournal(j: JournalResult): string {
  return [
    `Journal (compiled daemon, fake agent): @stream ${j.events} to one subscriber, ${j.rounds} rounds, journal off and on interleaved (medians)`,
    table(
      ["journal off ev/s", "journal on ev/s", "cost (≤ 10%)", `load, ${LOAD_EVENTS} events (≤ 50 ms)`, `list page of ${PAGE} / ${LIST_SESSIONS} (≤ 20 ms)`, "51st page"],
      [[fmt.int(Math.round(j.offEventsPerSecond)), fmt.int(Math.round(j.onEventsPerSecond)), `${(j.cost * 100).toFixed(1)}%`, fmt.ms(j.loadP50Ms), fmt.ms(j.listFirstPageP50Ms), fmt.ms(j.listDeepPageP50Ms)]],
    ),
    `  (load: the whole POST /session/:id/load round trip, restore through the agent plus a replay of ${fmt.int(j.loadReplayed)} envelopes)`,
    `Idle RSS (VmRSS, anonymous in brackets) after a list and a transcript page and ${STORE_IDLE_CLOSE_MS / 1000 + 1} s idle; /health while a 100 MB journal is deleted`,
    table(
      ["no database (dir owned elsewhere)", "empty data dir", `db of ${RSS_SESSIONS} sessions / ${fmt.int(RSS_SESSIONS * RSS_EVENTS_PER_SESSION)} events`, "db vs empty", "slowest /health during the delete", "/health requests"],
      [
        [
          `${fmt.mb(j.idleRssNoDbMb)} (${fmt.mb(j.idleAnonNoDbMb)})`,
          `${fmt.mb(j.idleRssEmptyMb)} (${fmt.mb(j.idleAnonEmptyMb)})`,
          `${fmt.mb(j.idleRssWithDbMb)} (${fmt.mb(j.idleAnonWithDbMb)})`,
          `${(j.idleRssWithDbMb - j.idleRssEmptyMb).toFixed(1)} MB (${(j.idleAnonWithDbMb - j.idleAnonEmptyMb).toFixed(1)})`,
          fmt.ms(j.deleteHealthMaxMs),
          String(j.deleteHealthRequests),
        ],
      ],
    ),
  ].join("\n");
}
