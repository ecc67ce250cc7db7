/**
 * A git view whose client goes away stops: its running `git` is killed and its queued runs leave the
 * queue, so abandoned requests cannot hold the views' slots. The `git` is a wrapper (outside the
 * workspace, first on PATH) that, while a marker file exists, records its pid and sleeps, standing
 * in for a slow repository.
 *
 * The daemon learns of the 12 closes in no fixed order: a running view's close can free a slot before
 * a queued view's close is seen, and that queued run then starts, to be killed when its own close
 * arrives. So this test asserts that every run that started is killed and that the slots are free
 * afterwards; that a waiting run whose request is abandoned never starts is unit-tested on `RunSlots`
 * (`test/unit/workspace/git-views.test.ts`).
 */
import { expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { initRepo } from "../helpers/git-repo.ts";
import { pidGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

test("abandoned git views free their slots: every git they started is killed", async () => {
  await using bin = tempDir("svc-git-slow-");
  await using ws = tempDir("svc-git-cancel-");
  const marker = join(bin.path, "slow");
  const pids = join(bin.path, "pids");
  writeFileSync(join(bin.path, "git"), `#!/bin/sh\nif [ -e '${marker}' ]; then echo $$ >> '${pids}'; exec sleep 30; fi\nexec ${Bun.which("git")} "$@"\n`);
  chmodSync(join(bin.path, "git"), 0o755);
  writeFileSync(marker, "");
  initRepo(ws.path, { "a.txt": "a\n" });
  await using d = await fakeAgentDaemon(["--trust-workspace"], { workspace: ws.path, env: { PATH: `${bin.path}:${process.env.PATH ?? "/usr/bin:/bin"}` } });
  const started = () => (existsSync(pids) ? readFileSync(pids, "utf8").split("\n").filter(Boolean).map(Number) : []);

  // 12 requests: 8 take the 8 slots, 4 wait for one.
  const clients = Array.from({ length: 12 }, () => new AbortController());
  const requests = clients.map((c) => d.fetch("/workspace/git/log", { signal: c.signal }).catch(() => null));
  await until(() => started().length === 8, 10_000, "eight git runs to start");
  for (const c of clients) c.abort();
  await Promise.all(requests);
  // At most the 4 queued runs can start after the first 8 (see the header); each is killed too.
  await until(() => started().every(pidGone), 5000, "every abandoned run's git to be killed");
  rmSync(marker);

  // A slot still held by an abandoned view would make this wait for the wrapper's 30 s sleep.
  const t0 = performance.now();
  const fresh = await d.json("GET", "/workspace/git/log");
  expect(fresh.body).toMatchObject({ available: true, entries: [{ subject: "first commit" }] });
  expect(performance.now() - t0).toBeLessThan(5000);
  expect(started().length).toBeGreaterThanOrEqual(8);
  expect(started().length).toBeLessThanOrEqual(12);
  expect(started().every(pidGone)).toBe(true);
});
