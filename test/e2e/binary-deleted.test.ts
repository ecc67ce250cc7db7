/**
 * A compiled daemon whose binary was deleted after it started: the binary is what an agent start
 * spawns (it runs its own embedded entry), so `POST /session` answers 503 `cli_entry_missing`
 * naming the binary, not a 500 from a failed spawn, and preflight's `cli_entry` cell agrees.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { spawnReady } from "../helpers/launcher.ts";
import { tempDir } from "../helpers/temp-dir.ts";

let binary: BuiltBinary;
beforeAll(async () => {
  binary = await buildBinary();
}, 120_000);
afterAll(async () => {
  await binary?.[Symbol.asyncDispose]();
});

describe("the daemon's binary deleted while it runs", () => {
  test("POST /session is 503 cli_entry_missing naming the binary, nothing spawned; preflight's cli_entry cell says so", async () => {
    await using dir = tempDir("svc-deleted-");
    const copy = join(dir.path, "svc");
    copyFileSync(binary.path, copy);
    const workspace = join(dir.path, "ws");
    mkdirSync(workspace);
    await using d = await spawnReady(["--workspace", workspace], { env: { SVC_HOME: join(dir.path, "home"), SVC_CLI_ENTRY: undefined }, cmd: [copy] });
    rmSync(copy);

    const reply = await jsonRequest(d.ready.url, "POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "cli_entry_missing", reason: "not_found", source: "process.argv[1]", retryable: false });
    expect(reply.body.error).toContain("binary");
    expect(d.stderr()).not.toContain("agent spawned");
    const cells = (await jsonRequest(d.ready.url, "GET", "/workspace/preflight")).body.cells as { kind: string; status: string }[];
    expect(cells.find((c) => c.kind === "cli_entry")).toMatchObject({ status: "error", reason: "not_found" });
    expect(await d.terminate()).toBe(0);
  });
});
