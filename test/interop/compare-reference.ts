/**
 * Field-by-field comparison of svc with the reference daemon (`qwen serve`, 0.24.4): both run side by
 * side on copies of the same workspace, against one loopback mock model (svc with its built-in
 * agent, the reference with its own), and the same script of requests goes to each: the status
 * routes, a session created with a source, a prompt, a write that asks permission and is allowed
 * once, the session's views, the lists, the history, and a handful of errors. For every request it
 * prints the status of each and every field path whose presence or JSON type differs:
 *
 *   ./node_modules/.bin/bun test/interop/compare-reference.ts [--ref <package dir>] [--svc <binary>] [--out <dir>]
 *
 * The reference package defaults to `.interop/node_modules/@qwen-code/qwen-code` (installed by
 * `npm run test:interop`); svc runs from the sources unless `--svc` names a binary (`dist/svc`);
 * `--out` keeps both answers of every request as JSON. Arrays are compared
 * by their first element; values are not compared (ids, times and paths differ by nature). A
 * difference is a finding to fix or to justify in docs/compat.md, so the script reports and exits 0.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startMockModel } from "../fixtures/mock-model.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const { values: flags } = parseArgs({ options: { ref: { type: "string" }, svc: { type: "string" }, out: { type: "string" } } });
const REF_PKG = resolve(flags.ref ?? join(REPO, ".interop", "node_modules", "@qwen-code", "qwen-code"));
const STEP_MS = 90_000;

interface Daemon {
  readonly name: "svc" | "ref";
  readonly url: string;
  readonly workspace: string;
  readonly child: ChildProcess;
}

interface Answer {
  status: number;
  body: unknown;
}

/** Path → JSON type of every member of `value` (`[]` stands for an array's first element). */
function shape(value: unknown, path = "", out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) {
    out.set(path || "(root)", "array");
    if (value.length > 0) shape(value[0], `${path}[]`, out);
  } else if (value !== null && typeof value === "object") {
    out.set(path || "(root)", "object");
    for (const [key, member] of Object.entries(value)) shape(member, path ? `${path}.${key}` : key, out);
  } else out.set(path || "(root)", value === null ? "null" : typeof value);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function request(d: Daemon, method: string, path: string, body?: unknown): Promise<Answer> {
  const init: RequestInit = { method, headers: body === undefined ? {} : { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetch(d.url + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: compared as a string
  }
  return { status: res.status, body: parsed };
}

function start(name: Daemon["name"], cmd: string[], workspace: string, env: Record<string, string>): Promise<Daemon> {
  const child = spawn(cmd[0]!, cmd.slice(1), { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolvePromise, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(seen)?.[1] ?? /"port":\s*(\d+)/.exec(seen)?.[1];
      if (port) resolvePromise({ name, url: `http://127.0.0.1:${port}`, workspace, child });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${name} exited (${code}) before listening:\n${seen.slice(-2000)}`)));
  });
}

/** Each request's findings: the two statuses, and the field paths that differ. */
const findings: { step: string; svc: number; ref: number; diffs: string[] }[] = [];
let saved = 0;

async function compare(step: string, pair: [Daemon, Daemon], method: string, path: (d: Daemon) => string, body?: (d: Daemon) => unknown): Promise<[Answer, Answer]> {
  const [svc, ref] = await Promise.all(pair.map((d) => request(d, method, path(d), body?.(d))));
  const a = shape(svc!.body);
  const b = shape(ref!.body);
  const diffs: string[] = [];
  for (const [key, type] of a) if (!b.has(key)) diffs.push(`${key}: svc ${type} · ref absent`);
  for (const [key, type] of b) if (!a.has(key)) diffs.push(`${key}: svc absent · ref ${type}`);
  for (const [key, type] of a) if (b.has(key) && b.get(key) !== type) diffs.push(`${key}: svc ${type} · ref ${b.get(key)}`);
  findings.push({ step, svc: svc!.status, ref: ref!.status, diffs });
  if (flags.out) writeFileSync(join(flags.out, `${String(++saved).padStart(3, "0")}.json`), JSON.stringify({ step, svc, ref }, null, 2));
  return [svc!, ref!];
}

async function main(): Promise<void> {
  if (!existsSync(join(REF_PKG, "cli.js"))) throw new Error(`no reference package at ${REF_PKG} (run npm run test:interop, or pass --ref)`);
  if (flags.out) mkdirSync(flags.out, { recursive: true });
  const mock = startMockModel({ writeCall: (path, content) => ({ name: "write_file", args: { file_path: path, content } }) });
  const scratch = tempDir("svc-compare-");
  const model = { OPENAI_API_KEY: "dummy-key", OPENAI_BASE_URL: mock.baseUrl, OPENAI_MODEL: "mock-model" };
  const daemons: Daemon[] = [];
  try {
    // One workspace, copied: the same files, the approval mode that asks before writes for each agent.
    const base = join(scratch.path, "base");
    mkdirSync(join(base, ".svc"), { recursive: true });
    mkdirSync(join(base, ".qwen"), { recursive: true });
    writeFileSync(join(base, "README.md"), "# compare\n");
    writeFileSync(join(base, ".svc", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
    writeFileSync(join(base, ".qwen", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
    const wsSvc = join(scratch.path, "ws-svc");
    const wsRef = join(scratch.path, "ws-ref");
    cpSync(base, wsSvc, { recursive: true });
    cpSync(base, wsRef, { recursive: true });
    for (const dir of ["home-svc", "home-ref", "svc-home"]) mkdirSync(join(scratch.path, dir));

    const svc = await start(
      "svc",
      [...(flags.svc ? [resolve(flags.svc)] : [join(REPO, "node_modules", ".bin", "bun"), join(REPO, "src", "main.ts")]), "serve", "--port", "0", "--workspace", wsSvc, "--trust-workspace"],
      wsSvc,
      { ...model, HOME: join(scratch.path, "home-svc"), SVC_HOME: join(scratch.path, "svc-home") },
    );
    daemons.push(svc);
    const ref = await start(
      "ref",
      ["node", join(REF_PKG, "cli.js"), "serve", "--port", "0", "--workspace", wsRef],
      wsRef,
      { ...model, HOME: join(scratch.path, "home-ref"), QWEN_HOME: join(scratch.path, "home-ref", ".qwen") },
    );
    daemons.push(ref);
    const pair: [Daemon, Daemon] = [svc, ref];
    const id = (d: Daemon) => workspaceId(d.workspace);
    const get = (step: string, path: (d: Daemon) => string) => compare(step, pair, "GET", path);

    // Before any session.
    for (const p of ["/health", "/capabilities", "/daemon/status", "/workspace/env", "/workspace/preflight", "/workspace/mcp", "/workspace/skills", "/workspace/providers", "/workspace/tools"])
      await get(`GET ${p} (idle)`, () => p);
    for (const p of ["/brand", "/workspace/settings", "/workspace/models", "/goals", "/scheduled-tasks", "/workspace/extensions", "/workspace/extensions/operations"]) await get(`GET ${p}`, () => p);
    await get("GET /workspaces/:ws/extensions", (d) => `/workspaces/${id(d)}/extensions`);
    await get("GET /workspaces/:ws/mcp", (d) => `/workspaces/${id(d)}/mcp`);

    // A session with a source, and an attach to it.
    const [created, createdRef] = await compare("POST /session (source)", pair, "POST", () => "/session", () => ({ sourceType: "web_shell", sourceId: "tab-1" }));
    const sid = new Map<Daemon, string>([
      [svc, (created.body as { sessionId: string }).sessionId],
      [ref, (createdRef.body as { sessionId: string }).sessionId],
    ]);
    const s = (d: Daemon) => sid.get(d)!;
    await compare("POST /session (attach)", pair, "POST", () => "/session", () => ({}));
    for (const view of ["status", "context", "supported-commands", "context-usage", "tasks", "stats", "lsp", "resources", "goal", "pending-prompts"]) await get(`GET /session/:id/${view}`, (d) => `/session/${s(d)}/${view}`);

    // A prompt answered with text.
    await compare("POST /session/:id/prompt", pair, "POST", (d) => `/session/${s(d)}/prompt`, () => ({ prompt: [{ type: "text", text: "please answer" }] }));
    for (const d of pair) await until(`${d.name} turn end`, async () => ((await request(d, "GET", `/session/${s(d)}/status`)).body as { hasActivePrompt?: boolean }).hasActivePrompt === false);
    await get("GET /session/:id/status (after a turn)", (d) => `/session/${s(d)}/status`);

    // A write that asks permission, allowed once.
    await compare("POST /session/:id/prompt (write)", pair, "POST", (d) => `/session/${s(d)}/prompt`, (d) => ({ prompt: [{ type: "text", text: `please write ${join(d.workspace, "out.txt")}` }] }));
    const pending = new Map<Daemon, { requestId: string; options: { optionId: string; kind: string }[] }>();
    for (const d of pair)
      pending.set(
        d,
        await until(`${d.name} permission`, async () => {
          const status = (await request(d, "GET", `/session/${s(d)}/status`)).body as { pendingInteractions?: { requestId: string; options: { optionId: string; kind: string }[] }[] };
          return status.pendingInteractions?.[0];
        }),
      );
    await get("GET /session/:id/status (permission pending)", (d) => `/session/${s(d)}/status`);
    await compare("POST /session/:id/permission/:requestId", pair, "POST", (d) => `/session/${s(d)}/permission/${pending.get(d)!.requestId}`, (d) => ({
      outcome: { outcome: "selected", optionId: pending.get(d)!.options.find((o) => o.kind === "allow_once")?.optionId ?? "proceed_once" },
    }));
    for (const d of pair) await until(`${d.name} write turn end`, async () => ((await request(d, "GET", `/session/${s(d)}/status`)).body as { hasActivePrompt?: boolean }).hasActivePrompt === false);

    // Lists, counts, history.
    await get("GET /workspace/:id/sessions", (d) => `/workspace/${id(d)}/sessions`);
    await get("GET /workspace/:id/sessions?size=1000&archiveState=active&sourceType=web_shell", (d) => `/workspace/${id(d)}/sessions?size=1000&archiveState=active&sourceType=web_shell`);
    await get("GET /workspace/:id/sessions?view=organized&group=all", (d) => `/workspace/${id(d)}/sessions?view=organized&group=all`);
    await get("GET /workspaces/:ws/sessions", (d) => `/workspaces/${id(d)}/sessions`);
    await get("GET /workspaces/:ws/sessions/live-state", (d) => `/workspaces/${id(d)}/sessions/live-state`);
    await get("GET /workspace/:id/session-info", (d) => `/workspace/${id(d)}/session-info`);
    await compare("POST /sessions/catalog", pair, "POST", () => "/sessions/catalog", (d) => ({ sessionIds: [s(d), "nope"] }));
    await get("GET /session/:id/transcript", (d) => `/session/${s(d)}/transcript?limit=5`);
    await get("GET /session/:id/export?format=json", (d) => `/session/${s(d)}/export?format=json`);
    await get("GET /workspace/mcp (session live)", () => "/workspace/mcp");
    await get("GET /workspace/providers (session live)", () => "/workspace/providers");
    await get("GET /workspace/skills (session live)", () => "/workspace/skills");

    // Errors.
    await get("GET /session/nope/status", () => "/session/nope/status");
    await get("GET /session/nope/goal", () => "/session/nope/goal");
    await get("GET /workspace/<unknown id>/sessions", () => "/workspace/0123456789abcdef/sessions");
    await get("GET /workspaces/<unknown path>/sessions", () => `/workspaces/${encodeURIComponent("/not/here")}/sessions`);
    await get("GET /workspace/:id/sessions?sourceType=BAD", (d) => `/workspace/${id(d)}/sessions?sourceType=BAD`);
    await get("GET /workspace/:id/sessions?view=flat", (d) => `/workspace/${id(d)}/sessions?view=flat`);
    await get("GET /workspace/:id/sessions?view=organized&group=g1", (d) => `/workspace/${id(d)}/sessions?view=organized&group=g1`);
    await compare("POST /session (bad source)", pair, "POST", () => "/session", () => ({ sessionScope: "thread", sourceType: "BAD" }));
    await compare("POST /session (reserved source)", pair, "POST", () => "/session", () => ({ sessionScope: "thread", sourceType: "standalone" }));
    await compare("POST /session (malformed JSON)", pair, "POST", () => "/session", () => "{");
    await compare("PATCH /workspace/models (bad body)", pair, "PATCH", () => "/workspace/models", () => ({ key: "x" }));
    await get("GET /nope", () => "/nope");

    await compare("DELETE /session/:id", pair, "DELETE", (d) => `/session/${s(d)}`);
  } finally {
    for (const d of daemons) d.child.kill("SIGTERM");
    await Promise.all(daemons.map((d) => (d.child.exitCode === null ? new Promise((r) => d.child.once("exit", r)) : null)));
    await mock[Symbol.asyncDispose]();
    await scratch[Symbol.asyncDispose]();
  }

  for (const f of findings) {
    if (f.svc === f.ref && f.diffs.length === 0) continue;
    console.log(`\n## ${f.step}  (svc ${f.svc} · ref ${f.ref})`);
    for (const diff of f.diffs) console.log(`- ${diff}`);
  }
  const same = findings.filter((f) => f.svc === f.ref && f.diffs.length === 0).length;
  console.log(`\n${findings.length} requests; ${same} alike, ${findings.length - same} with differences`);
}

await main();
