/**
 * `GET /workspace/preflight` probes the host tools (rg, git, npm) with `--version`. A tool that
 * leaves a process behind holding its stdout, or one that never exits, must not hang the route:
 * each probe is bounded (and killed when it runs over), and its cell says what happened. Only the
 * user's tools are probed: none found through a relative PATH entry or inside the workspace.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon } from "../helpers/daemon.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { tempDir } from "../helpers/temp-dir.ts";

function script(dir: string, name: string, body: string, makeDir = false): void {
  if (makeDir) mkdirSync(dir, { recursive: true });
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

/** The preflight cells of the three probed tools. */
async function toolCells(d: { fetch(path: string): Promise<Response> }) {
  const res = await d.fetch("/workspace/preflight");
  expect(res.status).toBe(200);
  const { cells } = (await res.json()) as { cells: Array<Record<string, unknown> & { kind: string }> };
  return Object.fromEntries(cells.filter((c) => ["ripgrep", "git", "npm"].includes(c.kind)).map((c) => [c.kind, c]));
}

describe("the workspace's own rg, git and npm are never run by preflight", () => {
  test("found through an absolute PATH entry inside the workspace, or a link outside pointing there: refused, with why", async () => {
    await using ws = tempDir("svc-tools-ws-");
    await using links = tempDir("svc-tools-links-");
    for (const name of ["rg", "git", "npm"]) script(join(ws.path, "tools"), name, `touch '${join(ws.path, `${name}-ran`)}'\necho "${name} 9.9.9"`, true);
    symlinkSync(join(ws.path, "tools", "git"), join(links.path, "git"));
    await using d = await startDaemon([], { workspace: ws.path, env: { PATH: `${links.path}:${join(ws.path, "tools")}:/nonexistent-svc-dir` } });
    const cells = await toolCells(d);
    for (const kind of ["ripgrep", "git", "npm"]) {
      expect(cells[kind]).toMatchObject({ status: "warning", errorKind: "missing_binary", reason: "inside_workspace" });
      expect(cells[kind]!.hint).toContain("outside the workspace");
    }
    expect(cells.ripgrep!.error).toContain(`lies inside the workspace (tools/rg)`);
    expect(cells.git!.error).toContain(`(${join(links.path, "git")}) lies inside the workspace (tools/git)`);
    for (const name of ["rg", "git", "npm"]) expect(existsSync(join(ws.path, `${name}-ran`))).toBe(false);
  });

  test("found only through relative or empty PATH entries: not searched, and the hint says so", async () => {
    await using ws = tempDir("svc-tools-ws-");
    for (const name of ["rg", "git", "npm"]) script(join(ws.path, "bin"), name, `touch '${join(ws.path, `${name}-ran`)}'\necho "${name} 9.9.9"`, true);
    for (const name of ["rg", "git", "npm"]) script(ws.path, name, `touch '${join(ws.path, `${name}-ran`)}'\necho "${name} 9.9.9"`, true);
    // The daemon runs in the workspace (the binary as a child is started there), so `bin` and the
    // empty entry would find the planted tools if they were searched.
    await using d = await startDaemon([], { workspace: ws.path, env: { PATH: "bin::/nonexistent-svc-dir" } });
    const cells = await toolCells(d);
    for (const kind of ["ripgrep", "git", "npm"]) {
      expect(cells[kind]).toMatchObject({ status: "warning", errorKind: "missing_binary" });
      expect(cells[kind]!.hint).toContain("relative PATH entries, such as node_modules/.bin, are not searched");
    }
    for (const name of ["rg", "git", "npm"]) expect(existsSync(join(ws.path, `${name}-ran`))).toBe(false);
  });

  test("a user's npm outside the workspace is probed with a PATH that leads nowhere into it", async () => {
    await using ws = tempDir("svc-tools-ws-");
    await using host = tempDir("svc-tools-host-");
    // npm, as its real script does, looks `node` up on the PATH it is given.
    script(host.path, "npm", `exec node`, true);
    script(join(ws.path, "bin"), "node", `touch '${join(ws.path, "node-ran")}'\necho 1.0.0`, true);
    await using d = await startDaemon([], { workspace: ws.path, env: { PATH: `${join(ws.path, "bin")}:${host.path}` } });
    const cells = await toolCells(d);
    expect(cells.npm).toMatchObject({ status: "warning", errorKind: "missing_file" });
    expect(existsSync(join(ws.path, "node-ran"))).toBe(false);
  });
});
