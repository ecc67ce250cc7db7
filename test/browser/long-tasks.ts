/**
 * The rendering budget (issue 29: no single event may cost over 50 ms of main thread): the CPU time
 * of each task the page's main thread ran, from a Chrome trace (`RunTask` events' thread time).
 * Thread time, not the wall time a `longtask` observer reports: on a machine shared with other
 * work (CI, two cores) a task's wall time includes the time the thread waited for a core, which
 * says nothing of the page. `const trace = await mainThreadTasks(page)` starts recording;
 * `await trace.stop()` returns the tasks' durations in ms, longest first.
 */
import type { Page } from "playwright-core";

interface TraceEvent {
  name: string;
  ph: string;
  tid: number;
  pid: number;
  tdur?: number;
  args?: { name?: string };
}

export interface TaskTrace {
  stop(): Promise<number[]>;
}

export async function mainThreadTasks(page: Page): Promise<TaskTrace> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...(e.value as unknown as TraceEvent[])));
  await cdp.send("Tracing.start", { categories: "devtools.timeline", transferMode: "ReportEvents" });
  return {
    async stop() {
      const complete = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", () => resolve()));
      await cdp.send("Tracing.end");
      await complete;
      await cdp.detach();
      const main = events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`);
      return events
        .filter((e) => e.name === "RunTask" && main.includes(`${e.pid}:${e.tid}`) && typeof e.tdur === "number")
        .map((e) => Math.round(e.tdur! / 1000))
        .sort((a, b) => b - a);
    },
  };
}
