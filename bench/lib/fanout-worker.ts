/**
 * Fan-out load process: `bun fanout-worker.ts <baseUrl> <sessionId> <count>`. Opens `count` live
 * subscriptions (no Last-Event-ID) to one session's event stream, prints `{"ready":true}`, then,
 * each time every subscription has received one more `turn_complete`, prints one `RoundReport` line
 * with what each subscription received since the previous report. Runs until it is stopped.
 *
 * It runs apart from the bench (and the daemon) so that reading a thousand sockets does not share
 * an event loop with the measurements; arrival times are wall-clock milliseconds
 * (`performance.timeOrigin + performance.now()`), comparable across processes and with the
 * envelopes' `_meta.serverTimestamp`.
 */
import { SseSubscriber } from "./sse-subscriber.ts";

export interface SubscriberRound {
  /** Frames received this round that carry an id: [id, arrival (epoch ms), serverTimestamp]. */
  readonly frames: [number, number, number][];
  /** Id-less frames this round (warnings, evictions): none expected. */
  readonly idLess: string[];
  readonly lastType: string | null;
}

export interface RoundReport {
  readonly round: number;
  readonly subscribers: SubscriberRound[];
}

/** Subscriptions opened at once while connecting. */
const OPEN_BATCH = 50;
/** A round whose `turn_complete` has not reached every subscriber by then has failed. */
const ROUND_TIMEOUT_MS = 120_000;

async function main(): Promise<void> {
  const [baseUrl, sessionId, countArg] = process.argv.slice(2);
  if (baseUrl === undefined || sessionId === undefined || countArg === undefined) {
    process.stderr.write("usage: fanout-worker.ts <baseUrl> <sessionId> <count>\n");
    process.exit(2);
  }
  const path = `/session/${encodeURIComponent(sessionId)}/events`;
  const subs: SseSubscriber[] = [];
  for (let opened = 0; opened < Number(countArg); opened += OPEN_BATCH) {
    const batch = Math.min(OPEN_BATCH, Number(countArg) - opened);
    subs.push(...(await Promise.all(Array.from({ length: batch }, () => SseSubscriber.open(baseUrl, path, { watch: ["turn_complete"] })))));
  }
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

  const reported = subs.map(() => 0);
  for (let round = 0; ; round++) {
    await Promise.all(subs.map((sub) => sub.waitFor("turn_complete", round + 1, ROUND_TIMEOUT_MS)));
    const report: RoundReport = {
      round,
      subscribers: subs.map((sub, i) => {
        const all = sub.frames();
        const fresh = all.slice(reported[i]);
        reported[i] = all.length;
        return {
          frames: fresh.filter((f) => f.id !== undefined).map((f): [number, number, number] => [f.id!, performance.timeOrigin + f.arrivedAt, f.serverTimestamp]),
          idLess: fresh.filter((f) => f.id === undefined).map((f) => f.type),
          lastType: fresh.at(-1)?.type ?? null,
        };
      }),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  }
}

await main();
