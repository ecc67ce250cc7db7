/**
 * The reference's web UI (`web-shell/` of `@qwen-code/qwen-code`) served in front of a daemon, as
 * `qwen serve` serves it itself (its `web-shell-static`): `GET /`, `/assets/*` (404 when missing),
 * `/manifest.webmanifest`, `/sw.js`, and `index.html` for any other document navigation
 * (`Sec-Fetch-Mode: navigate`, `Sec-Fetch-Dest: document`, or an `Accept` starting `text/html`, e.g.
 * a reload of `/session/<id>`). Every other request is forwarded to the daemon, streamed both ways
 * (event streams included).
 *
 * The one adaptation is the header vendor prefix: a request's `X-Qwen-*` headers reach svc as
 * `X-Svc-*` (`X-Qwen-Client-Id`, `X-Qwen-Event-Epoch`), an answer's `X-Svc-*` reach the page as
 * `X-Qwen-*` (`X-Svc-Event-Epoch`, `X-Svc-SSE-Stream-Id`). Nothing else of a request or an answer is
 * changed: the page's `Origin` (this server's) goes through as it is, so the daemon is started with
 * `--allow-origin <this server's origin>`, and the daemon's answers keep their status and body.
 *
 * Every forwarded answer with status ≥ 400 is recorded in `failures` (`<status> <method> <path>
 * <first 300 bytes of the body>`), so a test sees what the page got wrong even when the page
 * swallows it; `requests` lists every forwarded `<method> <path>`.
 */
import { existsSync, statSync } from "node:fs";
import { join, normalize, sep } from "node:path";

/** The vendor prefixes the page and the daemon use for the same headers. */
const PAGE_PREFIX = "x-qwen-";
const DAEMON_PREFIX = "x-svc-";
/** How much of an error answer's body a failure line keeps. */
const FAILURE_BODY_BYTES = 300;
/** The headers a forwarded answer cannot keep: Bun's fetch has already decoded and de-chunked the body. */
const HOP_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);
/** Single files the reference serves from the web-shell folder, with their content types. */
const PWA_FILES: Record<string, string> = { "/manifest.webmanifest": "application/manifest+json", "/sw.js": "application/javascript" };

/** Renames headers whose name starts with `from` to start with `to` (case-folded; the rest kept). */
export function renamePrefix(headers: Headers, from: string, to: string): Headers {
  const out = new Headers();
  headers.forEach((value, name) => out.append(name.startsWith(from) ? to + name.slice(from.length) : name, value));
  return out;
}

/** Whether a request is a document navigation, the reference's `isDocumentNavigation`. */
function isDocumentNavigation(req: Request): boolean {
  const accept = (req.headers.get("accept") ?? "").trim().toLowerCase();
  return req.headers.get("sec-fetch-mode") === "navigate" || req.headers.get("sec-fetch-dest") === "document" || accept.startsWith("text/html");
}

export interface WebShellProxy extends AsyncDisposable {
  /** This server's origin (`http://127.0.0.1:<port>`), the page's origin. */
  readonly url: string;
  /** Forwarded answers with status ≥ 400: `<status> <method> <path> <body start>`. */
  readonly failures: string[];
  /** Every forwarded request: `<method> <path with query>`. */
  readonly requests: string[];
  /** Where forwarded requests go (a daemon's base URL); set once the daemon is up. */
  upstream: string;
}

/** Serves `webShellDir` on a loopback port and forwards the rest to `upstream` (settable later). */
export function startWebShellProxy(webShellDir: string): WebShellProxy {
  const index = join(webShellDir, "index.html");
  if (!existsSync(index)) throw new Error(`no web-shell at ${webShellDir}`);
  const assets = join(webShellDir, "assets");
  const failures: string[] = [];
  const requests: string[] = [];
  const state = { upstream: "" };

  const file = (path: string, type?: string) => new Response(Bun.file(path), { headers: { "cache-control": "no-cache", ...(type ? { "content-type": type } : {}) } });

  async function forward(req: Request, url: URL): Promise<Response> {
    const target = new URL(url.pathname + url.search, state.upstream);
    const headers = renamePrefix(req.headers, PAGE_PREFIX, DAEMON_PREFIX);
    headers.delete("host");
    const line = `${req.method} ${url.pathname}${url.search}`;
    requests.push(line);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const answer = await fetch(target, { method: req.method, headers, body: hasBody ? await req.arrayBuffer() : undefined, redirect: "manual", signal: req.signal });
    const out = renamePrefix(answer.headers, DAEMON_PREFIX, PAGE_PREFIX);
    for (const name of HOP_HEADERS) out.delete(name);
    if (answer.status >= 400) {
      const body = new Uint8Array(await answer.arrayBuffer());
      failures.push(`${answer.status} ${line} ${new TextDecoder().decode(body.subarray(0, FAILURE_BODY_BYTES))}`);
      return new Response(body, { status: answer.status, statusText: answer.statusText, headers: out });
    }
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: out });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // Event streams stay open for the whole test.
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const read = req.method === "GET" || req.method === "HEAD";
      if (read && url.pathname.startsWith("/assets/")) {
        const path = normalize(join(assets, decodeURIComponent(url.pathname.slice("/assets/".length))));
        if (!path.startsWith(assets + sep) || !existsSync(path) || !statSync(path).isFile()) return new Response("Not found", { status: 404 });
        return file(path);
      }
      if (read && PWA_FILES[url.pathname]) return file(join(webShellDir, url.pathname.slice(1)), PWA_FILES[url.pathname]);
      if (read && (url.pathname === "/" || isDocumentNavigation(req))) return file(index, "text/html; charset=utf-8");
      if (!state.upstream) return new Response("no upstream yet", { status: 503 });
      return forward(req, url);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    failures,
    requests,
    get upstream() {
      return state.upstream;
    },
    set upstream(value: string) {
      state.upstream = value;
    },
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}
