/**
 * HEAD, as uptime monitors and proxies send it: every GET route answers it with the GET's status
 * and headers and no body, at once. On the event stream that means no subscription: a HEAD holds no
 * subscriber, no connection slot and no socket once answered, however many are sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { activeSseStreams } from "../helpers/daemon.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { fillTemplate } from "../helpers/path-variants.ts";
import { openSession } from "../helpers/prompt-session.ts";
import { rawRequest } from "../helpers/raw-http.ts";

const MAX_CONNECTIONS = 3;

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon(["--max-connections", String(MAX_CONNECTIONS)]);
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

/** HEAD over a raw socket: resolves with the answer's head (it rejects if none comes within 5 s). */
const head = (path: string, headers: [string, string][] = []) => rawRequest(d.port, { method: "HEAD", path, headers: [["Host", `127.0.0.1:${d.port}`], ...headers] });

describe("HEAD /session/:id/events", () => {
  test("answers the stream's status and content type at once, with no body", async () => {
    await using s = await openSession(d);
    const res = await head(`/session/${s.id}/events`, [["Last-Event-ID", "0"]]);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(res.body.byteLength).toBe(0);
  });

  test("has the GET's headers, but for the per-stream id", async () => {
    await using s = await openSession(d);
    const got = await head(`/session/${s.id}/events`);
    await using sse = await s.events();
    for (const name of ["content-type", "cache-control", "x-accel-buffering", "x-svc-event-epoch"]) expect([name, got.headers.get(name) ?? null]).toEqual([name, sse.headers.get(name)]);
    expect(got.headers.has("x-svc-sse-stream-id")).toBe(false);
  });

  test(`many HEADs hold nothing: no stream is counted, and with --max-connections ${MAX_CONNECTIONS} every route still answers, DELETE included`, async () => {
    const s = await openSession(d);
    for (let i = 0; i < MAX_CONNECTIONS * 4; i++) expect((await head(`/session/${s.id}/events`)).status).toBe(200);
    expect(await activeSseStreams(d)).toBe(0);
    expect((await d.fetch("/capabilities")).status).toBe(200);
    expect((await d.fetch(`/session/${s.id}`, { method: "DELETE" })).status).toBe(204);
  });

  test("answers the GET's errors: unknown session 404, bad maxQueued 400", async () => {
    expect((await head("/session/no-such-session/events")).status).toBe(404);
    await using s = await openSession(d);
    expect((await head(`/session/${s.id}/events?maxQueued=1`)).status).toBe(400);
  });

  test("fetch's HEAD resolves too", async () => {
    await using s = await openSession(d);
    const res = await d.fetch(`/session/${s.id}/events`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});

describe("HEAD of every GET route", () => {
  test("answers the GET's status with no body", async () => {
    await using s = await openSession(d);
    const doc = (await (await d.fetch("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const gets = Object.entries(doc.paths)
      .filter(([, operations]) => "get" in operations)
      .map(([template]) => fillTemplate(template, s.id));
    expect(gets).toContain(`/session/${s.id}/events`);
    const query: Record<string, string> = { "/file": "?path=a.txt", "/file/bytes": "?path=a.txt", "/stat": "?path=.", "/list": "?path=.", "/glob": "?pattern=*" };
    const pages = ["/", "/docs", "/docs/docs.js", "/docs/docs.css", "/openapi.json", "/health?deep=1", "/nope"];
    for (const path of [...gets.map((p) => p + (query[p] ?? "")), ...pages]) {
      const res = await head(path);
      const expected = path.endsWith("/events") ? 200 : (await d.fetch(path)).status;
      expect([path, res.status, res.body.byteLength]).toEqual([path, expected, 0]);
    }
    expect(await activeSseStreams(d)).toBe(0);
  });
});
