/**
 * `/openapi.json` is a contract: the same document whatever the daemon served before it. Elysia
 * writes into a route's schema objects when it builds that route's validators on first use, so
 * each daemon here is a fresh process (module state, schema objects included, is per process).
 */
import { expect, test } from "bun:test";
import { startChildDaemon, svcCommand } from "../helpers/daemon.ts";

async function documentOf(warmUp: string[]): Promise<unknown> {
  await using d = await startChildDaemon(svcCommand());
  for (const path of warmUp) await (await d.fetch(path)).arrayBuffer();
  const res = await d.fetch("/openapi.json");
  expect(res.status).toBe(200);
  return res.json();
}

test("the document does not depend on which routes ran before it was first asked for", async () => {
  const [cold, warmed] = await Promise.all([
    documentOf([]),
    documentOf(["/file?path=a", "/file/bytes?path=a&maxBytes=-1", "/glob?pattern=*", "/list?path=.", "/stat?path=.", "/session/x/status"]),
  ]);
  expect(JSON.stringify(warmed)).toBe(JSON.stringify(cold));
});
