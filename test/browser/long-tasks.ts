/**
 * Long tasks of a page's main thread, for the rendering budget (issue 29: no single event may cost
 * over 50 ms): `watchLongTasks(context)` installs a `longtask` PerformanceObserver before any page
 * script runs; `longTasks.read(page)` gives the durations (ms) seen since the last `reset`.
 */
import type { BrowserContext, Page } from "playwright-core";

type Watched = { __longTasks: number[] };

export async function watchLongTasks(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: number[] = [];
    (window as unknown as Watched).__longTasks = seen;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) seen.push(Math.round(entry.duration));
    }).observe({ type: "longtask", buffered: true });
  });
}

export const longTasks = {
  read: (page: Page) => page.evaluate(() => [...(window as unknown as Watched).__longTasks]),
  reset: (page: Page) => page.evaluate(() => void ((window as unknown as Watched).__longTasks.length = 0)),
};
