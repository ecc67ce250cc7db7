/**
 * The strict mutation gate (spec Authentication §2, notes §8.3 and §11) on the real strict routes:
 * every route the daemon marks `x-svc-strict` (read from /openapi.json, so a new one is covered
 * too) answers 401 `token_required` while no token is configured, in every spelling that reaches
 * its handler; with a token it is a passthrough and the ordinary bearer check decides.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { expectUnauthorized } from "../helpers/http-expect.ts";
import { fillTemplate, spellingsOf } from "../helpers/path-variants.ts";
import { rawRequest, type RawResponse } from "../helpers/raw-http.ts";

const TOKEN = "strict-gate-token";
const TOKEN_REQUIRED = "token_required";

/** `[METHOD, path]` of every strict route, parameters filled in. */
async function strictRoutes(d: TestDaemon): Promise<[string, string][]> {
  const doc = (await (await d.fetch("/openapi.json", { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const out: [string, string][] = [];
  for (const [template, operations] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(operations)) if (operation["x-svc-strict"] === true) out.push([method.toUpperCase(), fillTemplate(template)]);
  return out;
}

/** A body each strict route would act on if it were let through: it names a file that must never appear. */
const bodyFor = (file: string) => JSON.stringify({ path: file, content: "written", mode: "create", oldText: "a", newText: "b", expectedHash: `sha256:${"0".repeat(64)}` });

function send(d: TestDaemon, method: string, target: string, body: string, headers: [string, string][] = []): Promise<RawResponse> {
  return rawRequest(d.port, { method, path: target, headers: [["Host", `127.0.0.1:${d.port}`], ["Content-Type", "application/json"], ...headers], body });
}

/** What a request the gate or the router stopped looks like; anything else came from a handler. */
function stoppedBefore(res: RawResponse): string | null {
  const body = res.text === "" ? null : (JSON.parse(res.text) as { code?: string; error?: string });
  if (res.status === 401 && body?.code === TOKEN_REQUIRED) return "gate";
  if (res.status === 404 && body?.code === "route_not_found") return "router";
  if (res.status === 400 && body?.error === "Malformed URL encoding") return "url";
  return null;
}

describe("with no token configured", () => {
  let d: TestDaemon;
  let routes: [string, string][];
  beforeAll(async () => {
    d = await startDaemon();
    routes = await strictRoutes(d);
  });
  afterAll(() => d[Symbol.asyncDispose]());

  test("the daemon marks its file mutation routes strict", () => {
    expect(routes).toEqual(expect.arrayContaining([["POST", "/file/write"], ["POST", "/file/edit"]]));
  });

  test("each strict route answers 401 token_required with the spec's body, and does nothing", async () => {
    for (const [method, path] of routes) {
      const res = await send(d, method, path, bodyFor("canonical.txt"));
      expect([method, path, res.status]).toEqual([method, path, 401]);
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = JSON.parse(res.text) as { error: unknown; code: unknown };
      expect(body.code).toBe(TOKEN_REQUIRED);
      expect(body.error).toContain("SVC_SERVER_TOKEN");
    }
    expect(existsSync(join(d.workspace, "canonical.txt"))).toBe(false);
  });

  test("no spelling of a strict route reaches its handler past the gate", async () => {
    const reached: string[] = [];
    for (const [method, path] of routes) {
      const spellings = spellingsOf(path);
      for (const [i, target] of spellings.entries()) {
        const file = `spelling-${i}.txt`;
        const res = await send(d, method, target, bodyFor(file));
        if (stoppedBefore(res) === null) reached.push(`${method} ${target} → ${res.status} ${res.text}`);
      }
    }
    expect(reached).toEqual([]);
    expect(readdirSync(d.workspace)).toEqual([]);
  });

  test("spellings that resolve to the route itself meet the gate, not the router", async () => {
    for (const target of ["/file/./write", "/x/../file/write", "/file/%2e/write", "/file/write?x=1", "/file/write/../write"]) {
      const res = await send(d, "POST", target, bodyFor("resolved.txt"));
      expect([target, stoppedBefore(res)]).toEqual([target, "gate"]);
    }
    expect(existsSync(join(d.workspace, "resolved.txt"))).toBe(false);
  });

  test("sending some bearer does not help: there is no token to match", async () => {
    const res = await send(d, "POST", "/file/write", bodyFor("bearer.txt"), [["Authorization", "Bearer guess"]]);
    expect(stoppedBefore(res)).toBe("gate");
  });

  test("a self-origin loopback caller is not let through either (spec over reference)", async () => {
    const res = await send(d, "POST", "/file/write", bodyFor("self.txt"), [["Origin", `http://127.0.0.1:${d.port}`]]);
    expect(stoppedBefore(res)).toBe("gate");
  });

  test("a non-strict mutation route works without a token", async () => {
    const res = await d.fetch("/session/no-such/heartbeat", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("session_not_found");
  });

  test("only the marked method is strict", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) expect((await d.fetch("/file/write", { method })).status).toBe(404);
  });
});

describe("with a token configured", () => {
  test("a strict route answers the uniform 401 without the bearer, not token_required", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    await expectUnauthorized(await d.fetch("/file/write", { method: "POST", headers: { "Content-Type": "application/json" }, body: bodyFor("a.txt") }));
    expect(existsSync(join(d.workspace, "a.txt"))).toBe(false);
  });

  test("a strict route works with the bearer", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--trust-workspace"]);
    const res = await d.fetch("/file/write", {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: bodyFor("b.txt"),
    });
    expect(res.status).toBe(201);
    expect(existsSync(join(d.workspace, "b.txt"))).toBe(true);
  });
});
