/**
 * A git view whose client goes away stops: its running `git` is killed and its queued runs never
 * start, so abandoned requests cannot hold the views' slots. The `git` is a wrapper (outside the
 * workspace, first on PATH) that, while a marker file exists, records its pid and sleeps, standing
 * in for a slow repository.
 */
import { expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { initRepo } from "../helpers/git-repo.ts";
import { pidGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

test("abandoned git views free their slots: running git is killed, queued runs never start", async () => {
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
  const running = started();
  await until(() => running.every(pidGone), 5000, "the abandoned runs' git to be killed");
  rmSync(marker);

  // Were the 4 waiting runs still queued, they would take the freed slots first (recording their pids).
  const t0 = performance.now();
  const fresh = await d.json("GET", "/workspace/git/log");
  expect(fresh.body).toMatchObject({ available: true, entries: [{ subject: "first commit" }] });
  expect(performance.now() - t0).toBeLessThan(5000);
  expect(started()).toEqual(running);
});
