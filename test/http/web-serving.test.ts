/**
 * Serving the embedded web UI (routes/web.ts): the page shell at `/` with its CSP and headers, the
 * content-hashed assets with exact MIME types and immutable caching, JSON 404s for every other path
 * (unknown assets and API paths included, whatever the Accept header), HEAD, `--no-web`, the shell
 * and assets public on a bearer-protected daemon, and the UI's same-origin requests passing CORS
 * without `--allow-origin`. Runs against the compiled binary too (test:binary).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { accessControlHeaders, expectUnauthorized } from "../helpers/http-expect.ts";
import { fillTemplate } from "../helpers/path-variants.ts";
import { rawRequest } from "../helpers/raw-http.ts";

/** The CSP the UI contract names (briefs/ui-contract.md), written out here rather than imported. */
const CONTRACT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const IMMUTABLE = "public, max-age=31536000, immutable";
const TOKEN = "web-T0ken_value.7";
const NOT_FOUND = { error: "Not found", code: "route_not_found" };

/** The asset paths the shell references (`src="/assets/…"`, `href="/assets/…"`). */
const assetRefs = (html: string) => [...html.matchAll(/\b(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

async function expectJson404(res: Response) {
  expect(res.status).toBe(404);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(await res.json()).toEqual(NOT_FOUND);
}

let d: TestDaemon;
let shell: string;
let assets: string[];
beforeAll(async () => {
  d = await startDaemon();
  shell = await (await d.fetch("/")).text();
  assets = assetRefs(shell);
});
afterAll(async () => {
  await d?.[Symbol.asyncDispose]();
});

describe("GET /", () => {
  test("answers the shell with the contract's CSP, no-cache, nosniff and no referrer", async () => {
    const res = await d.fetch("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(CONTRACT_CSP);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).toContain('<div id="app">');
    // Nothing the CSP would block: every script has a src, no style attribute, no off-site reference.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\bstyle=/);
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
  });

  test("references one script and one stylesheet, both under /assets/ with content-hashed names", () => {
    expect(assets.filter((a) => a.endsWith(".js")).length).toBeGreaterThanOrEqual(1);
    expect(assets.filter((a) => a.endsWith(".css")).length).toBeGreaterThanOrEqual(1);
    for (const asset of assets) expect(asset).toMatch(/^\/assets\/[\w.-]+-[a-z0-9]{8}\.(js|css)$/);
  });

  test("a query string changes nothing; other spellings of the root are not the shell", async () => {
    expect(await (await d.fetch("/?x=1")).text()).toBe(shell);
    // Over a raw socket: fetch sends `//` as `/`.
    for (const path of ["//", "///", "/index.html", "/%2F"]) {
      const res = await rawRequest(d.port, { method: "GET", path, headers: [["Host", `127.0.0.1:${d.port}`], ["Accept", "text/html"]] });
      expect([path, res.status, res.headers.get("content-type")?.startsWith("application/json")]).toEqual([path, 404, true]);
    }
  });

  test("POST / is a JSON 404", async () => {
    await expectJson404(await d.fetch("/", { method: "POST", headers: { Accept: "text/html" } }));
  });
});

describe("GET /assets/<file>", () => {
  test("answers each referenced asset with its exact MIME type, immutable and nosniff", async () => {
    for (const asset of assets) {
      const res = await d.fetch(asset);
      expect([asset, res.status]).toEqual([asset, 200]);
      const type = asset.endsWith(".js") ? "text/javascript;charset=utf-8" : "text/css;charset=utf-8";
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const body = await res.text();
      expect(body.length).toBeGreaterThan(0);
      expect(await (await d.fetch(asset)).text()).toBe(body);
    }
  });

  test("a script's lazy chunks (the highlighter) resolve under /assets/ and are served like the page's script", async () => {
    const chunks = new Set<string>();
    for (const asset of assets.filter((a) => a.endsWith(".js"))) {
      const script = await (await d.fetch(asset)).text();
      for (const m of script.matchAll(/\bimport\((["'`])([^"'`]+)\1\)/g)) chunks.add(new URL(m[2]!, `http://ui${asset}`).pathname);
    }
    expect(chunks.size).toBeGreaterThanOrEqual(1);
    for (const chunk of chunks) {
      const res = await d.fetch(chunk);
      expect([chunk, res.status, res.headers.get("content-type"), res.headers.get("cache-control"), res.headers.get("x-content-type-options")]).toEqual([
        chunk,
        200,
        "text/javascript;charset=utf-8",
        IMMUTABLE,
        "nosniff",
      ]);
      expect(chunk).toMatch(/^\/assets\/[\w.-]+-[a-z0-9]{8}\.js$/);
      expect(await res.text()).toContain("highlightLine");
    }
  });

  test("an unknown or mangled asset path is a JSON 404, never HTML", async () => {
    const [first] = assets;
    const paths = [
      "/assets/nope.js",
      "/assets/",
      "/assets",
      `${first}/`,
      `${first}/x`,
      `${first!.toUpperCase()}`,
      `${first}%2F`,
      "/assets/..%2Fpackage.json",
      "/assets/%2e%2e/src/main.ts",
      "/assets/..%2F..%2Fsrc%2Fweb%2Fmain.tsx",
      "/assets/index.html",
      "/assets/main.tsx",
    ];
    for (const path of paths) {
      const res = await d.fetch(path, { headers: { Accept: "text/html,*/*" } });
      expect([path, res.status, res.headers.get("content-type")?.split(";")[0]]).toEqual([path, 404, "application/json"]);
    }
  });
});

describe("no HTML fallback", () => {
  test("every API path answers JSON, never the shell, even to Accept: text/html", async () => {
    const doc = (await (await d.fetch("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const gets = Object.entries(doc.paths).filter(([, ops]) => "get" in ops).map(([template]) => fillTemplate(template, "no-such-id"));
    expect(gets.length).toBeGreaterThan(10);
    for (const path of [...gets, "/session", "/sessions/", "/ui/sessions", "/workspace", "/nope", "/docs/"]) {
      const res = await rawRequest(d.port, { method: "HEAD", path, headers: [["Host", `127.0.0.1:${d.port}`], ["Accept", "text/html"]] });
      expect([path, res.headers.get("content-type")?.startsWith("text/html")]).toEqual([path, false]);
    }
  });
});

describe("HEAD", () => {
  test("the shell and an asset answer the GET's status and headers with no body", async () => {
    for (const path of ["/", assets[0]!]) {
      const get = await d.fetch(path);
      const head = await rawRequest(d.port, { method: "HEAD", path, headers: [["Host", `127.0.0.1:${d.port}`]] });
      expect([path, head.status, head.body.byteLength]).toEqual([path, 200, 0]);
      for (const name of ["content-type", "cache-control", "content-security-policy", "x-content-type-options"]) expect([name, head.headers.get(name) ?? null]).toEqual([name, get.headers.get(name)]);
    }
  });
});

describe("--no-web", () => {
  test("removes the shell and the assets (JSON 404s); the docs stay", async () => {
    await using noWeb = await startDaemon(["--no-web"]);
    await expectJson404(await noWeb.fetch("/", { headers: { Accept: "text/html" } }));
    for (const asset of assets) await expectJson404(await noWeb.fetch(asset));
    expect((await noWeb.fetch("/docs")).status).toBe(200);
    expect((await noWeb.fetch("/openapi.json")).status).toBe(200);
  });
});

describe("a bearer-protected daemon", () => {
  test.each([[[]], [["--require-auth"]]])("serves the shell and assets without the token (flags %j); the API still needs it", async (flags) => {
    await using protectedDaemon = await startDaemon(["--token", TOKEN, ...flags]);
    const res = await protectedDaemon.fetch("/");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain(TOKEN);
    for (const asset of assetRefs(html)) expect([asset, (await protectedDaemon.fetch(asset)).status]).toEqual([asset, 200]);
    // Only GET/HEAD of the UI's own paths are public: an unknown asset, other methods and the API are not.
    await expectUnauthorized(await protectedDaemon.fetch("/", { method: "POST" }));
    await expectUnauthorized(await protectedDaemon.fetch("/capabilities"));
    await expectUnauthorized(await protectedDaemon.fetch("/docs"));
    expect((await protectedDaemon.fetch("/capabilities", { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  test("--no-web: / needs the token like any other path", async () => {
    await using protectedDaemon = await startDaemon(["--token", TOKEN, "--no-web"]);
    await expectUnauthorized(await protectedDaemon.fetch("/"));
  });
});

describe("the UI's same-origin requests pass CORS with no --allow-origin", () => {
  test("Origin http://127.0.0.1:<port> and http://localhost:<port> on GET and POST; a foreign origin is refused", async () => {
    await using agent = await fakeAgentDaemon();
    for (const origin of [`http://127.0.0.1:${agent.port}`, `http://localhost:${agent.port}`]) {
      const caps = await agent.fetch("/capabilities", { headers: { Origin: origin } });
      expect([origin, caps.status]).toEqual([origin, 200]);
      expect(accessControlHeaders(caps.headers)).toEqual([]);
      const created = await agent.fetch("/session", { method: "POST", headers: { Origin: origin, "Content-Type": "application/json" }, body: "{}" });
      expect([origin, created.status]).toEqual([origin, 200]);
    }
    const foreign = await agent.fetch("/capabilities", { headers: { Origin: `http://127.0.0.1:${agent.port + 1}` } });
    expect(foreign.status).toBe(403);
  });
});
