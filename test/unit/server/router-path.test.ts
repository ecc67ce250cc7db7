/**
 * The router matches the path the front door's gates judge (`pathOf`), character for character:
 * whatever the Host's length, and with no trailing-slash twin. A gate decided on one path while the
 * router dispatched another would let a spelling past a gate meant for it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Logger } from "../../../src/logging/logger.ts";
import { createApp, type BuiltApp } from "../../../src/server/app.ts";
import { pathOf } from "../../../src/server/front-door.ts";
import type { RuntimeRegistry } from "../../../src/sessions/runtime-registry.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";

let dir: TempDir;
let built: BuiltApp;
let runtimes: RuntimeRegistry;

beforeAll(() => {
  dir = tempDir("svc-router-");
  const { config, logger } = testServerConfig(dir.path, []);
  const deps = testAppDeps(config, logger as Logger);
  runtimes = deps.runtimes;
  built = createApp(deps);
});

afterAll(async () => {
  await runtimes.stop();
  await dir[Symbol.asyncDispose]();
});

const status = async (url: string, method = "GET") => (await built.fetch(new Request(url, { method }))).status;

describe("the router reads the path the front door reads", () => {
  // Bun builds request.url from the Host header, so its length is the client's choice.
  test.each(["a", "a:1", "ab", "abc", "a.b", "[::1]", "127.0.0.1:4170"])("with Host %j", async (host) => {
    const base = `http://${host}`;
    for (const path of ["/capabilities", "/zz/capabilities", "/z/capabilities", "/zzz/capabilities", "/daemon/status", "/x/daemon/status"]) {
      const url = base + path;
      expect(pathOf(url)).toBe(path);
      expect([url, await status(url)]).toEqual([url, path === "/capabilities" || path === "/daemon/status" ? 200 : 404]);
    }
  });

  test("a query is not part of the path, a fragment (never valid in a request target) is, for both", async () => {
    expect(pathOf("http://h:1/capabilities#x")).toBe("/capabilities#x");
    expect(await status("http://h:1/capabilities#x")).toBe(404);
    expect(pathOf("http://h:1/capabilities?x=/y")).toBe("/capabilities");
    expect(await status("http://h:1/capabilities?x=/y")).toBe(200);
    expect(pathOf("http://h:1/capabilities/?x")).toBe("/capabilities/");
    expect(await status("http://h:1/capabilities/?x")).toBe(404);
  });
});

describe("one spelling per route", () => {
  test.each(["/capabilities/", "/daemon/status/", "/health/", "/docs/", "/openapi.json/"])("GET %s is not routed", async (path) => {
    expect(await status(`http://127.0.0.1:1${path}`)).toBe(404);
  });

  test.each(["/file/write/", "/file/edit/", "/session/", "/session/x/prompt/", "/session/x/heartbeat/"])("POST %s is not routed", async (path) => {
    expect(await status(`http://127.0.0.1:1${path}`, "POST")).toBe(404);
  });
});
