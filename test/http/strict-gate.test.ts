/**
 * The strict mutation gate (spec Authentication §2, notes §8.3 and §11): a route marked
 * `x-svc-strict` answers 401 `token_required` while no token is configured; with a token it is a
 * passthrough and the ordinary bearer check decides. No strict route is mounted in this build yet,
 * so these run the real front door around a test route carrying the marker.
 */
import { describe, expect, test } from "bun:test";
import { startFrontDoor } from "../helpers/front-door.ts";
import { expectUnauthorized } from "../helpers/http-expect.ts";

const TOKEN = "strict-gate-token";

describe("with no token configured", () => {
  test("a strict route answers 401 token_required", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/strict", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as { error: unknown; code: unknown };
    expect(body.code).toBe("token_required");
    expect(typeof body.error).toBe("string");
    expect(body.error).toContain("SVC_SERVER_TOKEN");
  });

  test("sending some bearer does not help: there is no token to match", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/strict", { method: "POST", headers: { Authorization: "Bearer guess" } });
    expect(((await res.json()) as { code: string }).code).toBe("token_required");
  });

  test("a self-origin loopback caller is not let through either (spec over reference)", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/strict", { method: "POST", headers: { Origin: `http://127.0.0.1:${fd.port}` } });
    expect(res.status).toBe(401);
  });

  test("a non-strict mutation route works without a token", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: { a: 1 } });
  });

  test("only the marked method and path are strict", async () => {
    await using fd = await startFrontDoor();
    expect((await fd.fetch("/test/strict")).status).toBe(404);
    expect((await fd.fetch("/test/strict/x", { method: "POST" })).status).toBe(404);
  });
});

describe("with a token configured", () => {
  test("the strict route answers the uniform 401 without the bearer, not token_required", async () => {
    await using fd = await startFrontDoor(["--token", TOKEN]);
    await expectUnauthorized(await fd.fetch("/test/strict", { method: "POST" }));
  });

  test("the strict route works with the bearer", async () => {
    await using fd = await startFrontDoor(["--token", TOKEN]);
    const res = await fd.fetch("/test/strict", { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
