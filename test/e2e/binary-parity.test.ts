/**
 * The compiled binary answers like the sources: the same request matrix (every route of
 * /openapi.json, valid and invalid queries, path parameters and bodies; `request-matrix.ts`) goes to
 * `bun src/main.ts` and to the binary, each over its own copy of the matrix's fixture workspace with
 * the fake agent as its agent, and every answer must have the same status, content type and body.
 *
 * The sources run as a child like the binary, not in this process: Elysia compiles validators into
 * the route schemas, which are module-level objects shared by every app a process builds, so what
 * other test files did here would show (e.g. in /openapi.json, rendered from those schemas).
 *
 * Bodies are compared after replacing what differs by construction (the workspace path and id, the
 * data dir, the port, the version) and masking what is fresh on every run: timestamps, and the
 * fields named in VOLATILE_KEYS (ids, durations, process figures).
 *
 * The binary is built for this file, or under `SVC_TEST_TARGET=binary` taken from `SVC_TEST_BINARY`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { MAIN_TS, startBinaryDaemon, startChildDaemon, type StartOptions, type TestDaemon } from "../helpers/daemon.ts";
import { writeTree } from "../helpers/file-routes.ts";
import { MATRIX_FIXTURE, requestMatrix, type MatrixRequest, type OpenApiDoc } from "../helpers/request-matrix.ts";
import { testTarget } from "../helpers/test-target.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "parity-token-4Kd9Xw";
/** A request that has not answered by then is recorded as a timeout (an SSE stream that opened). */
const ANSWER_TIMEOUT_MS = 5000;
/** Fields whose values are fresh on every run; their values are masked, their presence compared. */
const VOLATILE_KEYS = /^(sessionId|clientId|daemonId|promptId|pid|stopToken|channelId|childPid|modifiedMs|durationMs|uptimeMs|processToListenMs|rssBytes|heapUsedBytes)$/;
const FIXED_MTIME = new Date("2024-01-02T03:04:05Z");

let binary: { path: string } & Partial<BuiltBinary>;
beforeAll(async () => {
  const target = testTarget();
  binary = target.kind === "binary" ? { path: target.path } : await buildBinary();
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]?.());

interface Answer {
  readonly status: number | "timeout";
  readonly type: string | null;
  readonly body: unknown;
}

/** A fresh copy of the fixture (fixed mtimes), a data dir, and a daemon started on them. */
async function withDaemon<T>(start: (args: string[], options: StartOptions) => Promise<TestDaemon>, work: (d: TestDaemon, home: string) => Promise<T>): Promise<T> {
  await using dir = tempDir("svc-parity-");
  const workspace = join(dir.path, "workspace");
  const home = join(dir.path, "home");
  mkdirSync(home);
  writeTree(workspace, MATRIX_FIXTURE);
  for (const rel of [...Object.keys(MATRIX_FIXTURE), "dir", "."]) utimesSync(join(workspace, rel), FIXED_MTIME, FIXED_MTIME);
  await using d = await start(["--token", TOKEN], { workspace, env: { SVC_HOME: home, SVC_CLI_ENTRY: FAKE_AGENT_ENTRY } });
  return await work(d, home);
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function mask(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(mask);
  if (typeof value === "string" && ISO_TIME.test(value)) return "<time>";
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE_KEYS.test(k) && v !== null ? `<${typeof v}>` : mask(v)]));
}

/**
 * The web UI's asset names: content-hashed by two different bundler runs (`bun build --compile` for
 * the binary, `Bun.build` on first request for the sources), so named differently by construction.
 */
const HASHED_ASSET = /\/assets\/[\w.-]+-[a-z0-9]{8}\.(js|css)/g;

/** What differs between the two daemons by construction, and what stands for it in both. */
type Replacements = readonly (readonly [string, string])[];

async function answer(d: TestDaemon, replacements: Replacements, request: MatrixRequest): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` };
  if (request.contentType !== undefined) headers["Content-Type"] = request.contentType;
  const path = request.path.replaceAll("{workspace}", encodeURIComponent(d.workspace));
  let response: Response;
  try {
    response = await d.fetch(path, { method: request.method, headers, body: request.body, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch (err) {
    if ((err as Error).name === "TimeoutError") return { status: "timeout", type: null, body: null };
    throw err;
  }
  const type = response.headers.get("content-type");
  if (type?.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, type, body: "(event stream)" };
  }
  const text = replacements.reduce((t, [value, stand]) => t.replaceAll(value, stand), await response.text()).replace(HASHED_ASSET, "/assets/<hashed>.$1");
  return { status: response.status, type, body: type?.startsWith("application/json") && text !== "" ? parsed(text) : text };
}

function parsed(json: string): unknown {
  try {
    return mask(JSON.parse(json));
  } catch {
    return { "(not JSON)": json };
  }
}

/** Where two answers differ: up to a few `at.path: source → binary` lines. */
function differencesOf(a: unknown, b: unknown, at = "", out: string[] = []): string[] {
  if (out.length >= 4 || Bun.deepEquals(a, b)) return out;
  const walkable = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";
  if (walkable(a) && walkable(b) && Array.isArray(a) === Array.isArray(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) differencesOf(a[key], b[key], `${at}.${key}`, out);
  } else {
    out.push(`${at || "."}: ${JSON.stringify(a)?.slice(0, 200)} → ${JSON.stringify(b)?.slice(0, 200)}`);
  }
  return out;
}

async function answers(start: (args: string[], options: StartOptions) => Promise<TestDaemon>, matrix: (doc: OpenApiDoc) => MatrixRequest[]) {
  return await withDaemon(start, async (d, home) => {
    const get = async (path: string) => await (await d.fetch(path, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    const doc = (await get("/openapi.json")) as OpenApiDoc & { info: { version: string } };
    const { workspaces } = (await get("/capabilities")) as { workspaces: { id: string }[] };
    const replacements: Replacements = [
      [encodeURIComponent(d.workspace), "<workspace>"],
      [d.workspace, "<workspace>"],
      [workspaces[0]!.id, "<workspace-id>"],
      [home, "<home>"],
      [doc.info.version, "<version>"],
      [String(d.port), "<port>"],
    ];
    const requests = matrix(doc);
    const out: Answer[] = [];
    for (const request of requests) out.push(await answer(d, replacements, request));
    return { doc, requests, answers: out };
  });
}

test(
  "every route answers the same in the compiled binary as in the sources",
  async () => {
    const source = await answers((args, options) => startChildDaemon([process.execPath, MAIN_TS], args, options), requestMatrix);
    // The binary gets the requests built from the sources' document, so a route it lacks shows too.
    const compiled = await answers((args, options) => startBinaryDaemon(binary.path, args, options), () => source.requests);
    expect(Object.keys(compiled.doc.paths)).toEqual(Object.keys(source.doc.paths));
    expect(source.requests.length).toBeGreaterThan(500);
    const differences = source.requests.flatMap((request, i) => {
      const found = differencesOf(source.answers[i], compiled.answers[i]);
      return found.length === 0 ? [] : [`${request.label}: ${found.join("; ")}`];
    });
    expect(differences).toEqual([]);
  },
  120_000,
);
