/**
 * runManager's bound: a manager tool that ignores SIGTERM is killed (SIGKILL) when the bound passes,
 * so `svc service` never waits on it past the bound.
 */
import { expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runManager } from "../../../src/service/manager.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

test("a tool that ignores SIGTERM is killed at the bound and reported as not finishing", async () => {
  await using dir = tempDir("svc-manager-");
  const tool = join(dir.path, "systemctl");
  // The ignored SIGTERM survives exec: `sleep` itself ignores it.
  writeFileSync(tool, "#!/bin/sh\ntrap '' TERM\nexec sleep 60\n");
  chmodSync(tool, 0o755);
  const started = performance.now();
  const result = runManager([tool, "--user", "show-environment"], { PATH: "/usr/bin:/bin" }, 300);
  expect(performance.now() - started).toBeLessThan(5000);
  expect(result).toMatchObject({ ran: false, code: null, problem: `${tool} --user show-environment did not finish within 0.3 s` });
});
