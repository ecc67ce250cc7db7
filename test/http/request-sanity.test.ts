/**
 * Request sanity after the gates (notes §1): malformed JSON is 400, bodies over 10 MB are 413 (with
 * or without Content-Length, whatever their Content-Type, on every route), JSON nested deeper than
 * 64 levels is 400 `json_too_deep`, bad percent-encoding is 400, unknown routes are JSON 404 (never
 * HTML), and an unexpected error is a bare 500 that leaks nothing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startDaemon } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { startFrontDoor } from "../helpers/front-door.ts";
import { openSession } from "../helpers/prompt-session.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "sanity-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const MAX = 10 * 1024 * 1024;
const TOO_LARGE = { error: "Request body too large (max 10 MB)" };

/** A ReadableStream body (fetch sends it chunked, without Content-Length). */
function streamOf(totalBytes: number, fill = 0x20, chunk = 256 * 1024, tail = new TextEncoder().encode("{}")): ReadableStream<Uint8Array> {
  let sent = 0;
  const total = totalBytes - tail.byteLength;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) {
        controller.enqueue(tail);
        controller.close();
        return;
      }
      const n = Math.min(chunk, total - sent);
      controller.enqueue(new Uint8Array(n).fill(fill));
      sent += n;
    },
  });
}

describe("JSON bodies", () => {
  test.each<[string, string | Uint8Array<ArrayBuffer>]>([
    ["an unterminated object", '{"a":'],
    ["bare words", "{not json"],
    ["single quotes", "{'a': 1}"],
    ["a trailing comma", '{"a":1,}'],
    ["an unterminated array", "[1,2"],
    ["NaN", "NaN"],
    ["a NUL byte", '{"a":"\u0000"}'.replace("\\u0000", "\u0000")],
    ["two documents", "{}{}"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
  ])("%s is 400 with the fixed message", async (_what, body) => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ error: "Invalid JSON in request body" });
  });

  test.each<[string, string, unknown]>([
    ["an object", '{"a":[1,{"b":null}]}', { a: [1, { b: null }] }],
    ["an array", "[1,2]", [1, 2]],
    ["an empty body (read as {})", "", {}],
    ["white space only (read as {})", " \n\t ", {}],
  ])("%s is parsed", async (_what, body, received) => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received });
  });

  test("malformed JSON is judged only after auth passes", async () => {
    await using fd = await startFrontDoor(["--token", TOKEN]);
    const init = { method: "POST", body: "{oops" };
    expect((await fd.fetch("/test/echo", init)).status).toBe(401);
    const res = await fd.fetch("/test/echo", { ...init, headers: AUTH });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Invalid JSON in request body" });
  });
});

describe("the 10 MB body cap", () => {
  test("a declared Content-Length over the cap is 413 JSON before the body is read", async () => {
    await using fd = await startFrontDoor(["--token", TOKEN]);
    for (const path of ["/test/echo", "/nope"]) {
      const res = await rawRequest(fd.port, {
        method: "POST",
        path,
        headers: [["Host", `127.0.0.1:${fd.port}`], ["Authorization", AUTH.Authorization], ["Content-Type", "application/json"], ["Content-Length", String(MAX + 1)]],
      });
      expect(res.status).toBe(413);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(JSON.parse(res.text)).toEqual(TOO_LARGE);
    }
  });

  test("a real body over the cap with Content-Length is 413", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body: new Uint8Array(MAX + 1).fill(0x20) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE);
  });

  test("a chunked body (no Content-Length) over the cap is 413", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body: streamOf(MAX + 1024) });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual(TOO_LARGE);
  });

  test("a body of exactly 10 MB is accepted, with or without Content-Length", async () => {
    await using fd = await startFrontDoor();
    const exact = new Uint8Array(MAX).fill(0x20);
    exact.set(new TextEncoder().encode("{}"), MAX - 2);
    const sized = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body: exact });
    expect([sized.status, await sized.json()]).toEqual([200, { received: {} }]);
    const chunked = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body: streamOf(MAX) });
    expect([chunked.status, await chunked.json()]).toEqual([200, { received: {} }]);
  });
});

/** Content types a client may put on a body; the API reads every one of them as JSON, within the same bounds. */
const CONTENT_TYPES = ["application/json", "application/octet-stream", "multipart/form-data; boundary=x", "text/plain", "application/x-www-form-urlencoded", null];
/** POST routes that read a body: a strict one, a session one, and one whose handler never runs here (no session). */
const BODY_ROUTES = ["/file/write", "/session", "/session/no-such/prompt"];
const withType = (type: string | null, headers: Record<string, string> = {}) => (type === null ? headers : { ...headers, "Content-Type": type });

describe("the 10 MB body cap holds for every body", () => {
  test.each(CONTENT_TYPES)("a declared Content-Length over the cap with Content-Type %p is 413 on every route, unknown ones too", async (type) => {
    await using d = await startDaemon(["--token", TOKEN]);
    for (const path of [...BODY_ROUTES, "/nope"]) {
      const headers: [string, string][] = [["Host", `127.0.0.1:${d.port}`], ["Authorization", AUTH.Authorization], ["Content-Length", String(MAX + 1)]];
      if (type !== null) headers.push(["Content-Type", type]);
      const res = await rawRequest(d.port, { method: "POST", path, headers });
      expect([path, res.status, JSON.parse(res.text)]).toEqual([path, 413, TOO_LARGE]);
    }
  });

  test.each(CONTENT_TYPES)("a chunked body over the cap with Content-Type %p is 413 on every body route", async (type) => {
    await using d = await startDaemon(["--token", TOKEN]);
    for (const path of BODY_ROUTES) {
      const res = await d.fetch(path, { method: "POST", headers: withType(type, AUTH), body: streamOf(MAX + 1024) });
      expect([path, res.status, await res.json()]).toEqual([path, 413, TOO_LARGE]);
    }
  });

  test.each(CONTENT_TYPES)("a body within the cap with Content-Type %p is read as JSON", async (type) => {
    await using d = await startDaemon(["--token", TOKEN, "--trust-workspace"]);
    const res = await d.fetch("/file/write", { method: "POST", headers: withType(type, AUTH), body: JSON.stringify({ path: "typed.txt", content: "x", mode: "create" }) });
    expect(res.status).toBe(201);
    const bad = await d.fetch("/file/write", { method: "POST", headers: withType(type, AUTH), body: "--x\r\nnot json" });
    expect([bad.status, await bad.json()]).toEqual([400, { error: "Invalid JSON in request body" }]);
  });
});

/** `depth` nested arrays around `inner`. */
const nested = (depth: number, inner = "") => "[".repeat(depth) + inner + "]".repeat(depth);
const TOO_DEEP = { error: "JSON in the request body nests deeper than 64 levels", code: "json_too_deep", maxDepth: 64 };

describe("JSON nesting depth", () => {
  test("64 levels are accepted, 65 are 400 json_too_deep", async () => {
    await using fd = await startFrontDoor();
    const post = (body: string) => fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const ok = await post(nested(64));
    expect(ok.status).toBe(200);
    const objects = await post('{"a":'.repeat(63) + "1" + "}".repeat(63));
    expect(objects.status).toBe(200);
    const deep = await post(nested(65));
    expect([deep.status, await deep.json()]).toEqual([400, TOO_DEEP]);
    const mixed = await post('{"a":'.repeat(33) + nested(32) + "}".repeat(33));
    expect([mixed.status, await mixed.json()]).toEqual([400, TOO_DEEP]);
  });

  test("brackets inside strings, escaped quotes included, do not count", async () => {
    await using fd = await startFrontDoor();
    const text = `x\\"${"[{".repeat(200)}\\\"]`;
    const body = JSON.stringify({ a: text, b: [["[[[[", '"[[[['], "\\"] });
    const res = await fd.fetch("/test/echo", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect([res.status, await res.json()]).toEqual([200, { received: JSON.parse(body) }]);
  });

  test("a prompt block nested 50,000 levels deep is refused at the door, and the daemon carries on", async () => {
    await using d = await fakeAgentDaemon();
    await using s = await openSession(d);
    const body = `{"prompt":[{"type":"text","text":"hi","x":${nested(50_000)}}]}`;
    const res = await d.fetch(`/session/${s.id}/prompt`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect([res.status, await res.json()]).toEqual([400, TOO_DEEP]);
    // Nothing was admitted: the next prompt runs as usual.
    await using events = await s.events();
    const admitted = await s.prompt("hello");
    expect(admitted.status).toBe(202);
    await events.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.body.promptId);
  });

  test.each(CONTENT_TYPES)("every body route refuses deep JSON sent with Content-Type %p", async (type) => {
    await using d = await startDaemon(["--token", TOKEN]);
    for (const path of BODY_ROUTES) {
      const res = await d.fetch(path, { method: "POST", headers: withType(type, AUTH), body: `{"path":"deep.txt","content":"x","mode":"create","x":${nested(1000)}}` });
      expect([path, res.status, await res.json()]).toEqual([path, 400, TOO_DEEP]);
    }
    expect(existsSync(join(d.workspace, "deep.txt"))).toBe(false);
  });
});

describe("URL encoding", () => {
  test.each(["/%zz", "/capabilities%", "/%E0%A4%A", "/%ff", "/%C0%AF", "/daemon/%ED%A0%80"])("%s is 400 Malformed URL encoding", async (path) => {
    await using d = await startDaemon();
    const res = await rawRequest(d.port, { path, headers: [["Host", `127.0.0.1:${d.port}`]] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: "Malformed URL encoding", code: "invalid_request" });
  });

  test("bad encoding is judged only after auth passes", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    expect((await d.fetch("/%zz")).status).toBe(401);
    expect((await d.fetch("/%zz", { headers: AUTH })).status).toBe(400);
  });

  test("well-formed encoding routes normally", async () => {
    await using d = await startDaemon();
    expect((await d.fetch("/%68ealth")).status).toBe(404);
    expect((await d.fetch("/nope%20here")).status).toBe(404);
  });
});

describe("unknown routes", () => {
  test.each(["GET", "POST", "PUT", "PATCH", "DELETE"])("%s answers JSON 404, never HTML", async (method) => {
    await using d = await startDaemon();
    for (const path of ["/nope", "/v2/capabilities", "/health/extra", "/docs/missing.js", "/index.html", "/.env"]) {
      const res = await d.fetch(path, { method });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual({ error: "Not found", code: "route_not_found" });
    }
  });

  test("known paths with the wrong method are JSON 404 too", async () => {
    await using d = await startDaemon();
    for (const [method, path] of [["POST", "/health"], ["DELETE", "/capabilities"], ["PUT", "/daemon/status"], ["PATCH", "/openapi.json"], ["POST", "/"]]) {
      const res = await d.fetch(path!, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
    }
  });

  test("--no-web turns the landing page into a JSON 404", async () => {
    await using web = await startDaemon();
    expect((await web.fetch("/")).headers.get("content-type")).toContain("text/html");
    await using noWeb = await startDaemon(["--no-web"]);
    const res = await noWeb.fetch("/");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found", code: "route_not_found" });
  });
});

describe("unexpected errors", () => {
  test("answer a bare 500 without message, path or stack", async () => {
    await using fd = await startFrontDoor();
    const res = await fd.fetch("/test/throw");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "Internal server error" });
    expect(text).not.toContain(fd.workspace);
    // The details go to the log instead.
    await until(() => fd.logs.some((l) => l.includes("unhandled error")), 2000, "the error in the log");
  });
});
