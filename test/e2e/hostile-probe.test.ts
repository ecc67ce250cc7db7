/**
 * An independent probe of a running `svc serve` child with a few hundred malformed and hostile
 * requests, in three modes: with a token (and `--allow-origin '*'`, so every Origin is echoed),
 * without one, and with a token and `--require-auth` (no route exempt, not even /health). Generated
 * from a fixed seed per mode, so every run sends the same bytes. The child is the sources, or the
 * compiled binary under `SVC_TEST_TARGET=binary` (`npm run test:binary`).
 *
 * Every answer must hold: no 5xx from the daemon; a body is JSON, or one of the known pages; no
 * body carries the token, a stack trace, or (outside the discovery documents that report it by
 * spec) the workspace path, the data dir, the repo or `node_modules`; no response header carries the
 * token or an injected header. The daemon logs no error, and still answers /health at the end, with
 * a hundred half-open sockets held against it the whole time.
 *
 * Bun's own HTTP parser answers requests it cannot read before the daemon sees them: a bodyless
 * 400/413/431, or a bodyless 505 for an unreadable request line. Those are reported as "parser"
 * answers; a bodyless 505 is the only 5xx allowed.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, spawnDaemon } from "../helpers/daemon.ts";
import { buildRequest, openHalfOpen, rawExchange, type RawResponse } from "../helpers/raw-http.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const SEED = 0x5eed_2026;
const TOKEN = "probe-token-Zq81xK4mW0";
const HALF_OPEN_SOCKETS = 100;
const CONCURRENCY = 16;

/** Small, fast, deterministic PRNG (mulberry32). */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    bytes: (n: number) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)),
  };
}
type Rng = ReturnType<typeof prng>;

interface Probe {
  readonly label: string;
  readonly bytes: Uint8Array;
  /** The request path as sent (to recognise the known pages); null for garbage. */
  readonly path: string | null;
  readonly head?: boolean;
  readonly halfClose?: boolean;
}

interface Context {
  readonly port: number;
  readonly token: string | null;
  /** `[method, path template]` from /openapi.json plus the hidden pages. */
  readonly routes: readonly (readonly [string, string])[];
}

const enc = new TextEncoder();
const join8 = (...parts: (string | Uint8Array)[]) => {
  const chunks = parts.map((p) => (typeof p === "string" ? enc.encode(p) : p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
};

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"];
const PARAM_VALUES = ["..", "%2e%2e", "..%2f..%2fetc%2fpasswd", "%00", "%ff%fe", "a".repeat(300), "%C3%BC", "subagent.x", "123", "x%0d%0aX-Injected:%201", "*", "%25"];
const MALFORMED_JSON = ['{"a":', "{not json", "[1,2", "NaN", "{'a':1}", "\u0000", '{"a":1}{', "}", "[".repeat(5000), '{"a":"\\ud800"'];
const TRAVERSALS = [
  "/../../etc/passwd",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/..%2f..%2fetc%2fpasswd",
  "/%252e%252e/%252e%252e/etc/passwd",
  "/docs/../../../../etc/passwd",
  "/docs/..%5c..%5cpackage.json",
  "/docs/%2e%2e/%2e%2e/package.json",
  "/..\\..\\windows\\win.ini",
  "//etc/passwd",
  "/./././health",
  "/%2fhealth",
  "/.git/config",
  "/.env",
  "/package.json",
  "/src/main.ts",
  "/node_modules/elysia/package.json",
  "/file?path=../../etc/passwd",
  "/file?path=/etc/passwd",
  "/file?path=%2fetc%2fpasswd",
  "/file?path=..%2f..%2f..%2fetc%2fshadow",
  "/file/bytes?path=../../../../etc/passwd&offset=0",
  "/list?path=..",
  "/list?path=/",
  "/glob?pattern=../**",
  "/glob?pattern=/etc/*",
  "/file?path=.git/config",
  "/file?path=%00",
  "/file?path=a%00b",
];
const ORIGIN_TRICKS = [
  "http://a.example%0d%0aX-Injected:%201",
  "http://a.example X-Injected: 1",
  "http://a.example,http://b.example",
  "null",
  "",
  "http://[::1",
  "javascript:alert(1)",
  "http://" + "a".repeat(4000) + ".example",
];

function authHeader(ctx: Context, rng: Rng): [string, string][] {
  if (ctx.token === null) return rng.next() < 0.5 ? [] : [["Authorization", rng.pick(["Bearer x", "Basic Zm9v", "garbage"])]];
  return rng.next() < 0.8
    ? [["Authorization", `Bearer ${ctx.token}`]]
    : [["Authorization", rng.pick([`Bearer ${ctx.token}x`, `Basic ${btoa(ctx.token)}`, "Bearer", `Bearer ${ctx.token.slice(1)}`, ""])]];
}

function randomQuery(rng: Rng): string {
  const alphabet = ["a", "deep", "detail", "path", "%", "%ff", "&", "=", "?", "+", "%00", "ü", "[]", "..", "full", "1", "%2e"];
  let q = "?";
  const n = 1 + rng.int(6);
  for (let i = 0; i < n; i++) q += `${Array.from({ length: 1 + rng.int(4) }, () => rng.pick(alphabet)).join("")}=${Array.from({ length: rng.int(5) }, () => rng.pick(alphabet)).join("")}&`;
  return q;
}

function fillTemplate(template: string, rng: Rng): string {
  return template.replace(/:[A-Za-z]+|\{[A-Za-z]+\}/g, () => rng.pick(PARAM_VALUES));
}

function request(ctx: Context, method: string, path: string, headers: [string, string][], body?: string | Uint8Array): Probe {
  return {
    label: `${method} ${path.slice(0, 80)}`,
    path,
    head: method === "HEAD",
    bytes: buildRequest({ method, path, headers: [["Host", `127.0.0.1:${ctx.port}`], ...headers], body }),
  };
}

function buildProbes(ctx: Context, rng: Rng): Probe[] {
  const probes: Probe[] = [];

  // Every known route, every method, hostile parameters and queries; bodies are never valid JSON,
  // so nothing gets past parsing into a handler with side effects.
  for (const [, template] of ctx.routes)
    for (const method of METHODS) {
      const path = fillTemplate(template, rng) + (rng.next() < 0.5 ? randomQuery(rng) : "");
      const body = method === "GET" || method === "HEAD" ? undefined : rng.pick(MALFORMED_JSON);
      probes.push(request(ctx, method, path, [...authHeader(ctx, rng), ["Content-Type", "application/json"]], body));
    }

  for (const path of TRAVERSALS) probes.push(request(ctx, "GET", path, authHeader(ctx, rng)));
  for (let i = 0; i < 30; i++) probes.push(request(ctx, "GET", rng.pick(["/health", "/capabilities", "/daemon/status", "/", "/docs"]) + randomQuery(rng), authHeader(ctx, rng)));

  // Bodies: oversized (declared and chunked), deeply nested, invalid UTF-8, NUL bytes.
  const postRoutes = ctx.routes.filter(([m]) => m === "POST").map(([, p]) => fillTemplate(p, rng));
  const postTarget = () => (postRoutes.length > 0 ? rng.pick(postRoutes) : "/nope");
  const json = ["Content-Type", "application/json"] as [string, string];
  probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json], new Uint8Array(11 * 1024 * 1024).fill(0x5b)));
  probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json, ["Content-Length", String(50 * 1024 * 1024)]]));
  probes.push(
    request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json, ["Transfer-Encoding", "chunked"]], join8(...Array.from({ length: 12 }, () => `100000\r\n${"[".repeat(0x100000)}\r\n`), "0\r\n\r\n")),
  );
  probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json], "[".repeat(200_000) + "]".repeat(200_000)));
  probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json], '{"a":'.repeat(50_000)));
  probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json], new Uint8Array([0x7b, 0x22, 0xff, 0xc0, 0x80, 0x22, 0x3a, 0x31, 0x7d])));
  probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json], '{"a":"\u0000\u0000"'));
  for (let i = 0; i < 10; i++) probes.push(request(ctx, "POST", postTarget(), [...authHeader(ctx, rng), json], rng.bytes(1 + rng.int(2000))));

  // Headers: oversized, too many, odd names and values, injection attempts, framing conflicts.
  probes.push(request(ctx, "GET", "/health", [["X-Big", "a".repeat(20_000)]]));
  probes.push(request(ctx, "GET", "/health", Array.from({ length: 300 }, (_, i) => [`X-H${i}`, "v"] as [string, string])));
  probes.push(request(ctx, "GET", "/capabilities", [["Authorization", `Bearer ${"t".repeat(8000)}`]]));
  probes.push(request(ctx, "GET", "/capabilities", [["Authorization", "Bearer ü€𝄞"]]));
  for (const origin of ORIGIN_TRICKS) probes.push(request(ctx, "GET", "/capabilities", [...authHeader(ctx, rng), ["Origin", origin]]));
  probes.push(request(ctx, "OPTIONS", "/capabilities", [["Origin", "http://a.example"], ["Access-Control-Request-Method", "POST\r\nX-Injected: 1"]]));
  probes.push(request(ctx, "POST", "/nope", [["Content-Length", "5"], ["Content-Length", "7"]], "12345"));
  probes.push(request(ctx, "POST", "/nope", [["Content-Length", "4"], ["Transfer-Encoding", "chunked"]], "0\r\n\r\n"));
  probes.push(request(ctx, "POST", "/nope", [["Transfer-Encoding", "gzip, chunked"]], "zz\r\n"));
  probes.push(request(ctx, "POST", "/nope", [["Content-Length", "-1"]]));
  probes.push(request(ctx, "POST", "/nope", [["Content-Length", "1e3"]]));
  probes.push(request(ctx, "POST", "/nope", [["Expect", "100-continue"], ["Content-Length", String(20 * 1024 * 1024)]]));
  probes.push({ label: "NUL in a header value", path: null, bytes: join8(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nX-A: a`, new Uint8Array([0]), "b\r\nConnection: close\r\n\r\n") });
  probes.push({ label: "invalid UTF-8 in a header", path: null, bytes: join8(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nX-A: `, new Uint8Array([0xff, 0xc0]), "\r\nConnection: close\r\n\r\n") });
  probes.push({ label: "invalid UTF-8 in the path", path: null, bytes: join8("GET /cap", new Uint8Array([0xff, 0xfe]), `abilities HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nConnection: close\r\n\r\n`) });
  probes.push({ label: "NUL in the path", path: null, bytes: join8("GET /hea", new Uint8Array([0]), `lth HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nConnection: close\r\n\r\n`) });
  for (const host of ["", "evil.example", `127.0.0.1:${ctx.port}@evil.example`, "a/b", "a?b", `127.0.0.1:${ctx.port}\tx`]) probes.push(request(ctx, "GET", "/health", [["Host", host]]));

  // Framing garbage: unreadable request lines, other protocols, random bytes (some half-closed).
  const lines = [
    "GARBAGE\r\n\r\n",
    "GET / HTTP/9.9\r\n\r\n",
    "get /health HTTP/1.1\r\n\r\n",
    "GET  /health  HTTP/1.1\r\n\r\n",
    "GET /health\r\n\r\n",
    "GET nothing HTTP/1.1\r\n\r\n",
    `GET http://evil.example/health HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nConnection: close\r\n\r\n`,
    `OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nConnection: close\r\n\r\n`,
    `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nConnection: close\r\n\r\n`,
    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    `GET /health HTTP/1.1\nHost: 127.0.0.1:${ctx.port}\n\n`,
    `POST /nope HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /capabilities HTTP/1.1\r\nHost: 127.0.0.1:${ctx.port}\r\n\r\n`,
  ];
  for (const line of lines) probes.push({ label: `line ${JSON.stringify(line.slice(0, 30))}`, path: null, bytes: enc.encode(line) });
  probes.push({ label: "TLS ClientHello", path: null, bytes: new Uint8Array([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, ...rng.bytes(32)]), halfClose: true });
  for (let i = 0; i < 20; i++) probes.push({ label: `random bytes #${i}`, path: null, bytes: join8(rng.bytes(1 + rng.int(3000)), "\r\n\r\n") });
  for (let i = 0; i < 10; i++) probes.push({ label: `random bytes, half-closed #${i}`, path: null, bytes: rng.bytes(1 + rng.int(500)), halfClose: true });

  return probes;
}

/** The hidden pages (not in OpenAPI) and the bodies they may answer with. */
const PAGES: Record<string, RegExp> = {
  "/": /^text\/html/,
  "/docs": /^text\/html/,
  "/docs/docs.js": /^text\/javascript/,
  "/docs/docs.css": /^text\/css/,
};
/** Discovery documents whose 200 body reports the workspace by spec (`/workspace/trust`, the registrations, the runtime-stop preview and the instruction files of `/workspace/memory`, the agent definitions of `/workspace/agents`, the hooks listing: by the reference's shape). */
const REPORTS_WORKSPACE = /^\/(capabilities|daemon\/status|workspace-registrations|workspaces\/runtime-stop-options|workspace\/(preflight|env|mcp|runtime\/mcp|skills|providers|tools|trust|extensions|hooks|memory|agents|auth\/status|auth\/providers)|workspaces\/[^/]+\/(mcp|runtime\/mcp|extensions|hooks|memory|agents))(\?|$)/;
const STACK_FRAME = /\n\s*at \S|\bat (async )?\S+ \([^)]*:\d+:\d+\)/;

interface Secrets {
  readonly token: string | null;
  readonly paths: readonly string[];
}

/** The path the daemon routes, as WHATWG URL parsing resolves it (`/permission/..` is `/`); "" for garbage. */
function resolvedPath(requestPath: string | null): string {
  if (requestPath === null) return "";
  try {
    return new URL(`http://probe${requestPath}`).pathname;
  } catch {
    return "";
  }
}

function problems(probe: Probe, response: RawResponse | null, secrets: Secrets): string[] {
  if (response === null) return [];
  const out: string[] = [];
  const type = response.headers.get("content-type") ?? "";
  const parserAnswer = type === "" && response.body.byteLength === 0;
  // The probed daemon has no agent: a well-formed create is rightly answered 503 cli_entry_missing.
  const noAgent = response.status === 503 && /"code":"cli_entry_missing"/.test(response.text);
  if (response.status >= 500 && !(parserAnswer && response.status === 505) && !noAgent) out.push(`status ${response.status}`);
  for (const [name, value] of response.headers) {
    if (name.startsWith("x-injected")) out.push(`injected header ${name}`);
    if (secrets.token !== null && value.includes(secrets.token)) out.push(`token in header ${name}`);
  }
  if (response.body.byteLength > 0) {
    const path = resolvedPath(probe.path);
    const page = PAGES[path];
    if (/^application\/json/.test(type)) {
      try {
        JSON.parse(response.text);
      } catch {
        out.push("a JSON content type with a body that is not JSON");
      }
    } else if (!(page && response.status === 200 && page.test(type))) out.push(`a ${JSON.stringify(type)} body`);
    if (secrets.token !== null && response.text.includes(secrets.token)) out.push("the token in the body");
    if (STACK_FRAME.test(response.text)) out.push("a stack trace in the body");
    const mayReportWorkspace = response.status >= 200 && response.status < 300 && REPORTS_WORKSPACE.test(path);
    if (!mayReportWorkspace) for (const p of secrets.paths) if (response.text.includes(p)) out.push(`${JSON.stringify(p)} in the body`);
  }
  return out;
}

async function runAll<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

async function routesOf(url: string, token: string | null): Promise<[string, string][]> {
  const res = await fetch(`${url}/openapi.json`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
  const routes: [string, string][] = [];
  for (const [path, ops] of Object.entries(doc.paths)) for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), path]);
  for (const page of Object.keys(PAGES)) routes.push(["GET", page]);
  return routes;
}

/**
 * The modes: name, whether the daemon has a token, its extra flags, the seed of its probes. The
 * `--require-auth` mode sends the same probes as the first token mode, so only the flag differs.
 */
const MODES: [string, boolean, string[], number][] = [
  ["with a token and --allow-origin '*'", true, ["--allow-origin", "*"], SEED + 1],
  ["without a token", false, [], SEED],
  ["with a token and --require-auth", true, ["--require-auth"], SEED + 1],
];

describe("hostile probe", () => {
  test.each(MODES)(
    "%s: every answer is safe and the daemon keeps serving",
    async (_name, withToken, flags, seed) => {
      await using dir = tempDir("svc-probe-");
      const workspace = join(dir.path, "workspace");
      const home = join(dir.path, "home");
      mkdirSync(workspace);
      mkdirSync(home);
      const token = withToken ? TOKEN : null;
      await using d = await spawnDaemon(["--port", "0", "--workspace", workspace, ...flags], {
        env: { SVC_HOME: home, SVC_SERVER_TOKEN: token ?? undefined, SVC_CLI_ENTRY: join(dir.path, "no-agent-here.js") },
        cwd: workspace,
      });
      const port = Number(new URL(d.url).port);
      const ctx: Context = { port, token, routes: await routesOf(d.url, token) };

      const halfOpen: AsyncDisposable[] = [];
      try {
        const partials = [`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, "G", "", `POST /nope HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 1000\r\n\r\n{`];
        for (let i = 0; i < HALF_OPEN_SOCKETS; i++) halfOpen.push(await openHalfOpen(port, partials[i % partials.length]!));

        const probes = buildProbes(ctx, prng(seed));
        expect(probes.length).toBeGreaterThanOrEqual(200);
        const secrets: Secrets = { token, paths: [workspace, home, dir.path, REPO_ROOT, "node_modules"] };
        const outcomes = await runAll(probes, CONCURRENCY, async (probe) => {
          try {
            const { response } = await rawExchange(port, probe.bytes, { timeoutMs: 5000, head: probe.head, halfClose: probe.halfClose });
            return { probe, response, problems: problems(probe, response, secrets) };
          } catch (err) {
            return { probe, response: null, problems: [`no answer: ${(err as Error).message.slice(0, 120)}`] };
          }
        });
        const failures = outcomes.filter((o) => o.problems.length > 0).map((o) => `${o.probe.label} → ${o.response?.status ?? "-"}: ${o.problems.join("; ")}`);
        expect(failures).toEqual([]);
        // Most probes reach the daemon itself (a JSON answer), not just Bun's parser.
        const json = outcomes.filter((o) => (o.response?.headers.get("content-type") ?? "").startsWith("application/json")).length;
        expect(json).toBeGreaterThan(probes.length / 2);

        // Still serving while the half-open sockets are held.
        const health = await fetch(`${d.url}/health`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: "ok" });
      } finally {
        for (const socket of halfOpen) await socket[Symbol.asyncDispose]();
      }

      expect(d.proc.exitCode).toBeNull();
      await until(async () => (await fetch(`${d.url}/health`, { headers: token ? { Authorization: `Bearer ${token}` } : {} })).status === 200, 2000, "/health after the probe");
      const logged = d.stderr();
      expect(logged.split("\n").filter((l) => / ERROR /.test(l))).toEqual([]);
      if (token !== null) expect(logged + d.stdout()).not.toContain(token);
    },
    20_000,
  );
});
