/**
 * Rate limiting (spec Limits, notes §6 and §11): off by default; when on, a tier over its budget
 * answers 429 `rate_limit_exceeded` with `Retry-After` and `X-RateLimit-*`; /health, OPTIONS and
 * other tiers are not charged.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startDaemon } from "../helpers/daemon.ts";
import { expectCorsHeaders } from "../helpers/http-expect.ts";
import { spellingsOf } from "../helpers/path-variants.ts";
import { rawRequest } from "../helpers/raw-http.ts";

const TOKEN = "rate-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const APP = "http://app.example:3000";

async function exhaustReads(d: { fetch(path: string, init?: RequestInit): Promise<Response> }, budget: number, headers: Record<string, string> = {}) {
  for (let i = 0; i < budget; i++) expect((await d.fetch("/capabilities", { headers })).status).toBe(200);
}

describe("with --rate-limit", () => {
  test("the read after the budget is 429 rate_limit_exceeded with Retry-After and X-RateLimit-*", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "3"]);
    await exhaustReads(d, 3);
    const before = Math.floor(Date.now() / 1000);
    const res = await d.fetch("/capabilities");
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as { error: unknown; code: unknown };
    expect(body.code).toBe("rate_limit_exceeded");
    expect(typeof body.error).toBe("string");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    // 3 reads per 60 s window: one token refills in 20 s.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(20);
    expect(res.headers.get("x-ratelimit-limit")).toBe("3");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(before);
  });

  test("stays 429 while the bucket is empty", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "2"]);
    await exhaustReads(d, 2);
    for (let i = 0; i < 5; i++) expect((await d.fetch("/daemon/status")).status).toBe(429);
  });

  test("/health and OPTIONS are exempt", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "1", "--rate-limit-mutation", "1"]);
    await exhaustReads(d, 1);
    expect((await d.fetch("/capabilities")).status).toBe(429);
    for (let i = 0; i < 10; i++) {
      expect((await d.fetch("/health")).status).toBe(200);
      expect((await d.fetch("/health?deep=1")).status).toBe(200);
      expect((await d.fetch("/capabilities", { method: "OPTIONS" })).status).toBe(204);
    }
  });

  test("tiers are budgeted separately", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "1", "--rate-limit-mutation", "2"]);
    await exhaustReads(d, 1);
    expect((await d.fetch("/capabilities")).status).toBe(429);
    expect((await d.fetch("/nope", { method: "POST" })).status).toBe(404);
    expect((await d.fetch("/nope", { method: "DELETE" })).status).toBe(404);
    const third = await d.fetch("/nope", { method: "POST" });
    expect(third.status).toBe(429);
    expect(third.headers.get("x-ratelimit-limit")).toBe("2");
  });

  test("an admitted origin gets CORS headers (Retry-After exposed) on the 429", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--allow-origin", APP, "--rate-limit", "--rate-limit-read", "1"]);
    await exhaustReads(d, 1, AUTH);
    const res = await d.fetch("/capabilities", { headers: { ...AUTH, Origin: APP } });
    expect(res.status).toBe(429);
    expectCorsHeaders(res.headers, APP);
  });

  test("buckets are keyed by the socket's address: forwarding headers name no other client", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "2"]);
    await exhaustReads(d, 2);
    for (let i = 0; i < 5; i++) {
      const spoofed = {
        "X-Forwarded-For": `10.0.0.${i}`,
        "X-Real-IP": `10.0.1.${i}`,
        Forwarded: `for=10.0.2.${i}`,
        "X-Svc-Client-Id": `client-${i}`,
      };
      const res = await d.fetch("/capabilities", { headers: spoofed });
      expect(res.status).toBe(429);
    }
  });

  test("a fresh forwarding header on each request does not buy a fresh bucket", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "2"]);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await d.fetch("/capabilities", { headers: { "X-Forwarded-For": `192.0.2.${i}` } })).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  test("every spelling of the prompt route that reaches its handler is charged to the prompt tier", async () => {
    // A valid prompt body, so the handler (not the body schema) answers the one that gets through.
    const PROMPT_BODY = JSON.stringify({ prompt: [{ type: "text", text: "hi" }] });
    await using d = await startDaemon(["--rate-limit", "--rate-limit-prompt", "1", "--rate-limit-mutation", "1000"]);
    const send = (target: string) =>
      rawRequest(d.port, { method: "POST", path: target, headers: [["Host", `127.0.0.1:${d.port}`], ["Content-Type", "application/json"]], body: PROMPT_BODY });
    // The one prompt token: the handler answers (no such session).
    const first = await send("/session/s1/prompt");
    expect([first.status, JSON.parse(first.text).code]).toEqual([404, "session_not_found"]);
    const charged: string[] = [];
    for (const target of spellingsOf("/session/s1/prompt")) {
      const res = await send(target);
      const body = JSON.parse(res.text || "{}") as { code?: string; tier?: string; error?: string };
      const stopped = (res.status === 429 && body.tier === "prompt") || body.code === "route_not_found" || body.error === "Malformed URL encoding";
      if (!stopped) charged.push(`${target} → ${res.status} ${res.text}`);
    }
    expect(charged).toEqual([]);
  });

  test("SVC_SERVE_RATE_LIMIT=1 turns it on like the flag", async () => {
    await using d = await startDaemon(["--rate-limit-read", "1"], { env: { SVC_SERVE_RATE_LIMIT: "1" } });
    await exhaustReads(d, 1);
    expect((await d.fetch("/capabilities")).status).toBe(429);
  });

  test("rejections show in /daemon/status and the rate_limit tag in /capabilities", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-mutation", "1"]);
    await d.fetch("/nope", { method: "POST" });
    expect((await d.fetch("/nope", { method: "POST" })).status).toBe(429);
    const status = (await (await d.fetch("/daemon/status")).json()) as {
      status: string;
      issues: { code: string; severity: string }[];
      runtime: { rateLimit: { enabled: boolean; rejectedSinceStart: Record<string, number> } };
    };
    expect(status.runtime.rateLimit).toEqual({ enabled: true, rejectedSinceStart: { prompt: 0, mutation: 1, read: 0 } });
    expect(status.issues.map((i) => i.code)).toContain("rate_limit_hits");
    expect(((await (await d.fetch("/capabilities")).json()) as { features: string[] }).features).toContain("rate_limit");
  });
});

describe("without --rate-limit", () => {
  test("far more reads than the default budget all pass, and there is no rate_limit tag", async () => {
    await using d = await startDaemon();
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) statuses.add((await d.fetch("/capabilities")).status);
    expect([...statuses]).toEqual([200]);
    expect(((await (await d.fetch("/capabilities")).json()) as { features: string[] }).features).not.toContain("rate_limit");
  });
});

describe("with --rate-limit, from other loopback source addresses", () => {
  /** GET `path` over a socket whose local (source) address is `from` (node:net can bind it; Bun.connect cannot). */
  function getFrom(from: string, port: number, path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, localAddress: from }, () => {
        socket.end(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      });
      let head = "";
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => (head += chunk));
      socket.on("error", reject);
      socket.on("close", () => {
        const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
        if (status === undefined) reject(new Error(`no answer from ${from}: ${JSON.stringify(head.slice(0, 100))}`));
        else resolve(Number(status));
      });
    });
  }

  test("every 127.0.0.0/8 address shares one bucket: a new source address buys no new budget", async () => {
    await using d = await startDaemon(["--rate-limit", "--rate-limit-read", "3"]);
    const statuses: number[] = [];
    for (let i = 2; i <= 8; i++) statuses.push(await getFrom(`127.0.0.${i}`, d.port, "/daemon/status"));
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429]);
    // The plain 127.0.0.1 client is the same client too.
    expect((await d.fetch("/daemon/status")).status).toBe(429);
  });
});
