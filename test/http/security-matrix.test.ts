/**
 * The whole security chain as a matrix: auth × origin × host × route, for three configurations,
 * each cell checked against an oracle written from the spec's order:
 *
 *   self-origin strip → CORS allowlist → Host allowlist → bearer (loopback /health exempt unless
 *   --require-auth) → rate limit → strict gate → URL/body sanity → route
 *
 * plus explicit tests of which rule answers when several would.
 */
import { describe, expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";
import { startFrontDoor } from "../helpers/front-door.ts";
import { expectCorsDenied, expectCorsHeaders, expectInvalidHost, expectUnauthorized } from "../helpers/http-expect.ts";
import { rawRequest } from "../helpers/raw-http.ts";

const TOKEN = "matrix-token-7c1e";
const APP = "http://app.example:3000";
const LOCAL_APP = "http://localhost:5173";

type OriginKind = "none" | "self" | "allowed" | "denied" | "null";
type HostKind = "good" | "bad";
type AuthKind = "none" | "good" | "wrong";
type Route = readonly [method: string, path: string];

const ORIGINS: OriginKind[] = ["none", "self", "allowed", "denied", "null"];
const HOSTS: HostKind[] = ["good", "bad"];
const AUTHS: AuthKind[] = ["none", "good", "wrong"];
const ROUTES: Route[] = [
  ["GET", "/health"],
  ["GET", "/capabilities"],
  ["GET", "/daemon/status"],
  ["GET", "/nope"],
  ["POST", "/nope"],
];

interface Setup {
  readonly name: string;
  readonly args: string[];
  readonly token: boolean;
  readonly requireAuth: boolean;
  readonly allowedOrigin: string;
}

const SETUPS: Setup[] = [
  { name: "token + allow-origin", args: ["--token", TOKEN, "--allow-origin", APP], token: true, requireAuth: false, allowedOrigin: APP },
  { name: "token + --require-auth + allow-origin", args: ["--token", TOKEN, "--require-auth", "--allow-origin", APP], token: true, requireAuth: true, allowedOrigin: APP },
  { name: "no token + loopback allow-origin", args: ["--allow-origin", LOCAL_APP], token: false, requireAuth: false, allowedOrigin: LOCAL_APP },
];

interface Outcome {
  status: number;
  error: string | null;
  cors: boolean;
}

/** What the spec says a cell answers. */
function oracle(setup: Setup, origin: OriginKind, host: HostKind, auth: AuthKind, [method, path]: Route): Outcome {
  if (origin === "denied" || origin === "null") return { status: 403, error: "Request denied by CORS policy", cors: false };
  const cors = origin === "allowed";
  if (host === "bad") return { status: 403, error: "Invalid Host header", cors };
  const exempt = method === "GET" && path === "/health" && !setup.requireAuth;
  if (setup.token && !exempt && auth !== "good") return { status: 401, error: "Unauthorized", cors };
  if (path === "/nope") return { status: 404, error: "Not found", cors };
  return { status: 200, error: null, cors };
}

function headersFor(setup: Setup, port: number, origin: OriginKind, host: HostKind, auth: AuthKind): Record<string, string> {
  const headers: Record<string, string> = { Host: host === "good" ? `127.0.0.1:${port}` : `evil.example:${port}` };
  if (origin === "self") headers.Origin = `http://localhost:${port}`;
  if (origin === "allowed") headers.Origin = setup.allowedOrigin;
  if (origin === "denied") headers.Origin = "http://evil.example";
  if (origin === "null") headers.Origin = "null";
  if (auth === "good") headers.Authorization = `Bearer ${TOKEN}`;
  if (auth === "wrong") headers.Authorization = `Bearer not-${TOKEN}`;
  return headers;
}

describe("auth × origin × host × route", () => {
  test.each(SETUPS.map((s) => [s.name, s] as const))("%s: every cell answers as the spec's order says", async (_name, setup) => {
    await using d = await startDaemon(setup.args);
    const mismatches: string[] = [];
    let cells = 0;
    for (const origin of ORIGINS)
      for (const host of HOSTS)
        for (const auth of AUTHS)
          for (const route of ROUTES) {
            cells++;
            const expected = oracle(setup, origin, host, auth, route);
            const res = await d.fetch(route[1], { method: route[0], headers: headersFor(setup, d.port, origin, host, auth) });
            const body = (await res.json()) as { error?: string };
            const actual: Outcome = { status: res.status, error: body.error ?? null, cors: res.headers.get("access-control-allow-origin") !== null };
            if (JSON.stringify(actual) !== JSON.stringify(expected))
              mismatches.push(`origin=${origin} host=${host} auth=${auth} ${route.join(" ")}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
            if (actual.cors) expect(res.headers.get("access-control-allow-origin")).toBe(setup.allowedOrigin);
          }
    expect(cells).toBe(ORIGINS.length * HOSTS.length * AUTHS.length * ROUTES.length);
    expect(mismatches).toEqual([]);
  });
});

describe("which rule answers first", () => {
  test("a CORS refusal wins over a bad Host and a bad token", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", APP]);
    await expectCorsDenied(await d.fetch("/capabilities", { headers: { Origin: "http://evil.example", Host: "evil.example", Authorization: "Bearer x" } }));
  });

  test("a bad Host wins over a bad token, and keeps the CORS headers of an admitted origin", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", APP]);
    const res = await d.fetch("/capabilities", { headers: { Origin: APP, Host: "evil.example", Authorization: "Bearer x" } });
    await expectInvalidHost(res.clone());
    expectCorsHeaders(res.headers, APP);
  });

  test("a preflight is answered before the Host check (the real request meets it)", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", APP]);
    const pre = await d.fetch("/capabilities", { method: "OPTIONS", headers: { Origin: APP, Host: "evil.example", "Access-Control-Request-Method": "GET" } });
    expect(pre.status).toBe(204);
    await expectInvalidHost(await d.fetch("/capabilities", { headers: { Origin: APP, Host: "evil.example", Authorization: `Bearer ${TOKEN}` } }));
  });

  test("the bearer check comes before the rate limit, so refused requests spend nothing", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--rate-limit", "--rate-limit-read", "2"]);
    for (let i = 0; i < 5; i++) await expectUnauthorized(await d.fetch("/capabilities"));
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await d.fetch("/capabilities", { headers: auth })).status).toBe(200);
    expect((await d.fetch("/capabilities", { headers: auth })).status).toBe(200);
    expect((await d.fetch("/capabilities", { headers: auth })).status).toBe(429);
    // Once over the limit, an unauthenticated request still gets the 401, not the 429.
    await expectUnauthorized(await d.fetch("/capabilities"));
  });

  test("the bearer check comes before body parsing, URL sanity and the body cap", async () => {
    await using fd = await startFrontDoor(["--token", TOKEN]);
    await expectUnauthorized(await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" }));
    await expectUnauthorized(await fd.fetch("/test/%zz"));
    const big = await rawRequest(fd.port, {
      method: "POST",
      path: "/test/echo",
      headers: [["Host", `127.0.0.1:${fd.port}`], ["Content-Type", "application/json"], ["Content-Length", String(11 * 1024 * 1024)]],
    });
    expect(big.status).toBe(401);
    expect(JSON.parse(big.text)).toEqual({ error: "Unauthorized" });
  });

  test("the strict gate comes before body parsing and the body cap", async () => {
    await using fd = await startFrontDoor();
    const bad = await fd.fetch("/test/strict", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { code: string }).code).toBe("token_required");
    const big = await rawRequest(fd.port, {
      method: "POST",
      path: "/test/strict",
      headers: [["Host", `127.0.0.1:${fd.port}`], ["Content-Type", "application/json"], ["Content-Length", String(11 * 1024 * 1024)]],
    });
    expect(big.status).toBe(401);
    expect(JSON.parse(big.text).code).toBe("token_required");
  });

  test("the rate limit comes before the strict gate", async () => {
    await using fd = await startFrontDoor(["--rate-limit", "--rate-limit-mutation", "1"]);
    const first = await fd.fetch("/test/strict", { method: "POST" });
    expect([first.status, ((await first.json()) as { code: string }).code]).toEqual([401, "token_required"]);
    const second = await fd.fetch("/test/strict", { method: "POST" });
    expect([second.status, ((await second.json()) as { code: string }).code]).toEqual([429, "rate_limit_exceeded"]);
  });

  test("--require-auth: the global 401 answers before the strict gate", async () => {
    await using fd = await startFrontDoor(["--token", TOKEN, "--require-auth"]);
    await expectUnauthorized(await fd.fetch("/test/strict", { method: "POST" }));
  });
});
