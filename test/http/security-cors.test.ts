/**
 * Cross-origin rules (spec Authentication §6–10, notes §8.2): unmatched origins are refused without
 * any `Access-Control-*` header, matched ones get the origin echoed and the full header set on every
 * response, preflights answer 204 without auth, and the daemon's own origins are stripped.
 */
import { describe, expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";
import { accessControlHeaders, expectCorsDenied, expectCorsHeaders, expectUnauthorized } from "../helpers/http-expect.ts";

const TOKEN = "cors-test-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const APP = "http://app.example:3000";
const ALLOW = ["--token", TOKEN, "--allow-origin", APP];

describe("unmatched origins", () => {
  test.each([
    "http://evil.example",
    "http://app.example:3001",
    "https://app.example:3000",
    "http://app.example",
    "http://evil.app.example:3000",
    "http://app.example:3000.evil.example",
    "http://app.example:3000/",
    "null",
    "",
    "file://",
  ])("%j is refused with 403 and no Access-Control-* headers, even with a valid token", async (origin) => {
    await using d = await startDaemon(ALLOW);
    await expectCorsDenied(await d.fetch("/capabilities", { headers: { ...AUTH, Origin: origin } }));
  });

  test("the refusal applies on /health too", async () => {
    await using d = await startDaemon(ALLOW);
    await expectCorsDenied(await d.fetch("/health", { headers: { Origin: "http://evil.example" } }));
  });

  test("a daemon without --allow-origin refuses every foreign origin", async () => {
    await using d = await startDaemon();
    await expectCorsDenied(await d.fetch("/health", { headers: { Origin: "http://localhost:5173" } }));
    await expectCorsDenied(await d.fetch("/capabilities", { headers: { Origin: APP } }));
  });

  test("a preflight from an unmatched origin is refused the same way", async () => {
    await using d = await startDaemon(ALLOW);
    await expectCorsDenied(
      await d.fetch("/capabilities", { method: "OPTIONS", headers: { Origin: "http://evil.example", "Access-Control-Request-Method": "GET" } }),
    );
  });

  test("Origin: null is refused even under '*'", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", "*"]);
    await expectCorsDenied(await d.fetch("/capabilities", { headers: { ...AUTH, Origin: "null" } }));
    await expectCorsDenied(await d.fetch("/health", { method: "OPTIONS", headers: { Origin: "null", "Access-Control-Request-Method": "GET" } }));
  });
});

describe("matched origins", () => {
  test.each<[string, string, Record<string, string>, number]>([
    ["a 200", "/capabilities", AUTH, 200],
    ["a 401", "/capabilities", {}, 401],
    ["a 404", "/nope", AUTH, 404],
    ["the exempt /health", "/health", {}, 200],
    ["a 400", "/daemon/status?detail=bogus", AUTH, 400],
  ])("get the full header set on %s", async (_what, path, headers, status) => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch(path, { headers: { ...headers, Origin: APP } });
    expect(res.status).toBe(status);
    expectCorsHeaders(res.headers, APP);
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  test("the 401 body stays the uniform one", async () => {
    await using d = await startDaemon(ALLOW);
    await expectUnauthorized(await d.fetch("/capabilities", { headers: { Origin: APP } }));
  });

  test("matching is case-insensitive and the origin is echoed verbatim, never *", async () => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch("/capabilities", { headers: { ...AUTH, Origin: "HTTP://App.Example:3000" } });
    expect(res.status).toBe(200);
    expectCorsHeaders(res.headers, "HTTP://App.Example:3000");
  });

  test("under '*' any origin is echoed, never *", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", "*"]);
    for (const origin of ["https://anything.example", "http://localhost:1234", "chrome-extension://abcdef"]) {
      const res = await d.fetch("/capabilities", { headers: { ...AUTH, Origin: origin } });
      expect(res.status).toBe(200);
      expectCorsHeaders(res.headers, origin);
    }
  });

  test("a tokenless daemon may admit a loopback origin", async () => {
    await using d = await startDaemon(["--allow-origin", "http://localhost:5173"]);
    const res = await d.fetch("/capabilities", { headers: { Origin: "http://localhost:5173" } });
    expect(res.status).toBe(200);
    expectCorsHeaders(res.headers, "http://localhost:5173");
  });

  test("requests without Origin get no Access-Control-* headers", async () => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch("/capabilities", { headers: AUTH });
    expect(res.status).toBe(200);
    expect(accessControlHeaders(res.headers)).toEqual([]);
  });
});

describe("preflight", () => {
  test.each<[string, Record<string, string>]>([
    ["Access-Control-Request-Method", { "Access-Control-Request-Method": "POST" }],
    ["Access-Control-Request-Headers", { "Access-Control-Request-Headers": "authorization, content-type" }],
    ["both", { "Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "x-svc-client-id" }],
  ])("with %s from a matched origin answers 204 with the headers and no auth", async (_what, headers) => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch("/capabilities", { method: "OPTIONS", headers: { ...headers, Origin: APP } });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expectCorsHeaders(res.headers, APP);
  });

  test("answers 204 for any path (the real request is judged later)", async () => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch("/session/abc/prompt", { method: "OPTIONS", headers: { Origin: APP, "Access-Control-Request-Method": "POST" } });
    expect(res.status).toBe(204);
  });

  test("the real request after a preflight still needs the token", async () => {
    await using d = await startDaemon(ALLOW);
    const pre = await d.fetch("/capabilities", { method: "OPTIONS", headers: { Origin: APP, "Access-Control-Request-Method": "GET" } });
    expect(pre.status).toBe(204);
    await expectUnauthorized(await d.fetch("/capabilities", { headers: { Origin: APP } }));
  });
});

describe("plain OPTIONS (no preflight headers) continues downstream", () => {
  test("it meets the bearer check, with CORS headers attached", async () => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch("/capabilities", { method: "OPTIONS", headers: { Origin: APP } });
    await expectUnauthorized(res.clone());
    expectCorsHeaders(res.headers, APP);
  });

  test("authenticated, it is answered with Allow and the CORS headers", async () => {
    await using d = await startDaemon(ALLOW);
    const res = await d.fetch("/capabilities", { method: "OPTIONS", headers: { ...AUTH, Origin: APP } });
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")).toBe("GET, POST, PATCH, DELETE, OPTIONS");
    expectCorsHeaders(res.headers, APP);
  });

  test("without an Origin it still needs the token", async () => {
    await using d = await startDaemon(ALLOW);
    await expectUnauthorized(await d.fetch("/capabilities", { method: "OPTIONS" }));
    const res = await d.fetch("/capabilities", { method: "OPTIONS", headers: AUTH });
    expect(res.status).toBe(204);
    expect(accessControlHeaders(res.headers)).toEqual([]);
  });
});

describe("self-origin strip", () => {
  const selfOrigins = (port: number) => [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://[::1]:${port}`,
    `http://host.docker.internal:${port}`,
    `https://127.0.0.1:${port}`,
    `HTTP://LOCALHOST:${port}`,
  ];

  test("the daemon's own origins pass without --allow-origin and get no CORS headers", async () => {
    await using d = await startDaemon();
    for (const origin of selfOrigins(d.port)) {
      const res = await d.fetch("/capabilities", { headers: { Origin: origin } });
      expect([origin, res.status]).toEqual([origin, 200]);
      expect(accessControlHeaders(res.headers)).toEqual([]);
    }
  });

  test("they pass beside an unrelated allowlist too, and still need the token", async () => {
    await using d = await startDaemon(ALLOW);
    for (const origin of selfOrigins(d.port)) {
      expect((await d.fetch("/capabilities", { headers: { ...AUTH, Origin: origin } })).status).toBe(200);
      await expectUnauthorized(await d.fetch("/capabilities", { headers: { Origin: origin } }));
    }
  });

  test("a loopback origin on another port is not the daemon's own", async () => {
    await using d = await startDaemon();
    for (const origin of [`http://127.0.0.1:${d.port + 1}`, "http://127.0.0.1", "http://localhost", `http://127.0.0.2:${d.port}`, `http://foo.localhost:${d.port}`])
      await expectCorsDenied(await d.fetch("/health", { headers: { Origin: origin } }));
  });
});

describe("the pattern list stays private", () => {
  test("/capabilities advertises only the allow_origin tag, never the patterns", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", "https://secret-frontend.example:8443", "--allow-origin", "http://localhost:5173"]);
    const text = await (await d.fetch("/capabilities", { headers: AUTH })).text();
    expect(text).not.toContain("secret-frontend");
    expect(text).not.toContain("5173");
    expect((JSON.parse(text) as { features: string[] }).features).toContain("allow_origin");
    const status = await (await d.fetch("/daemon/status?detail=full", { headers: AUTH })).text();
    expect(status).not.toContain("secret-frontend");
    expect(status).not.toContain("5173");
  });

  test("without --allow-origin there is no allow_origin tag", async () => {
    await using d = await startDaemon();
    expect(((await (await d.fetch("/capabilities")).json()) as { features: string[] }).features).not.toContain("allow_origin");
  });
});
