/**
 * Calls the workspace file routes of a test daemon and returns status, headers and parsed body.
 *
 *   const files = fileRoutes(d, "t");                 // bearer token "t" (needed for writes)
 *   const r = await files.get("/file", { path: "a.txt", line: 2 });
 *   const raw = await files.get("/file", "path=%252e%252e"); // a query string sent verbatim
 *   const w = await files.post("/file/write", { path: "a.txt", content: "x", mode: "create" });
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TestDaemon } from "./daemon.ts";

export interface FileRouteResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The raw body text (to check what never appears in it). */
  readonly text: string;
  /** The parsed JSON body (null when not JSON); tests read arbitrary fields of it. */
  readonly body: any;
}

async function parse(response: Response): Promise<FileRouteResponse> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, text, body };
}

export function fileRoutes(d: TestDaemon, token?: string) {
  const auth: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  return {
    async get(route: string, query: Record<string, string | number> | string = {}): Promise<FileRouteResponse> {
      const qs = typeof query === "string" ? query : new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
      return await parse(await d.fetch(`${route}?${qs}`, { headers: auth }));
    },
    async post(route: string, body: unknown): Promise<FileRouteResponse> {
      return await parse(
        await d.fetch(route, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) }),
      );
    },
  };
}

/** Writes files (creating directories) under `root`: `{ "src/a.ts": "text" | bytes }`. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

/** The `sha256:<hex>` content hash the routes use. */
export function sha256(content: string | Uint8Array): string {
  return `sha256:${new Bun.CryptoHasher("sha256").update(content).digest("hex")}`;
}
