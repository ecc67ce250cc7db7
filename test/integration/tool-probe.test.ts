/**
 * `GET /workspace/preflight` probes the host tools (rg, git, npm) with `--version`. A tool that
 * leaves a process behind holding its stdout, or one that never exits, must not hang the route:
 * each probe is bounded (and killed when it runs over), and its cell says what happened.
 */
import { expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon } from "../helpers/daemon.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";

function script(dir: string, name: string, body: string): void {
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

test("a tool whose background process holds stdout open, and a tool that never answers, do not hang preflight", async () => {
  await using bin = tempDir("svc-tools-");
  const leftover = join(bin.path, "rg.leftover");
  const hung = join(bin.path, "npm.pid");
  // rg answers and exits, leaving a process that holds its stdout; npm never answers.
  script(bin.path, "rg", `echo "ripgrep 14.1.0"\nsleep 3600 &\necho $! > "${leftover}"`);
  script(bin.path, "npm", `echo $$ > "${hung}"\nexec sleep 3600`);
  await using d = await startDaemon([], { env: { PATH: `${bin.path}:${process.env.PATH}` } });
  try {
    const res = await d.fetch("/workspace/preflight");
    expect(res.status).toBe(200);
    const { cells } = (await res.json()) as { cells: Array<{ kind: string; error?: string; detail?: { version?: string } }> };
    expect(cells.find((c) => c.kind === "ripgrep")).toMatchObject({ detail: { version: "14.1.0" } });
    expect(cells.find((c) => c.kind === "npm")?.error).toContain("no answer within");
    // The probe that never answered was killed.
    await expectPidsGone([Number(readFileSync(hung, "utf8"))], 3000, "the hung probe");
  } finally {
    const pid = Number(readFileSync(leftover, "utf8"));
    process.kill(pid, "SIGKILL");
    await expectPidsGone([pid], 3000, "the tool's leftover process");
  }
});
