/**
 * The workspace-qualified REST core (`/workspaces/:workspace/…`): every qualified route answers
 * for the primary workspace by id and by path exactly as its legacy route does, 404
 * `workspace_not_found` for a workspace not served and 400 `invalid_workspace` for a selector that
 * is neither an id nor an absolute path; writes are refused on an untrusted workspace; the OpenAPI
 * document lists the qualified forms with their schemas and tags.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { fileRoutes, sha256, writeTree } from "../helpers/file-routes.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";

let d: TestDaemon;
let files: ReturnType<typeof fileRoutes>;
let id: string;

beforeAll(async () => {
  d = await startDaemon(["--token", "t", "--trust-workspace"]);
  files = fileRoutes(d, "t");
  id = workspaceId(d.workspace);
  writeTree(d.workspace, { "a.txt": "hello\n", "src/b.ts": "export {};\n" });
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
});

/** Reads: [legacy path, qualified rest, query]. */
const READS: [string, string, Record<string, string>][] = [
  ["/file", "/file", { path: "a.txt" }],
  ["/file/bytes", "/file/bytes", { path: "a.txt" }],
  ["/stat", "/stat", { path: "a.txt" }],
  ["/list", "/list", { path: "." }],
  ["/glob", "/glob", { pattern: "**/*.ts" }],
  ["/workspace/env", "/env", {}],
  ["/workspace/preflight", "/preflight", {}],
  ["/workspace/mcp", "/mcp", {}],
  ["/workspace/skills", "/skills", {}],
  ["/workspace/providers", "/providers", {}],
  ["/workspace/tools", "/tools", {}],
  [`/workspace/${"ID"}/sessions`, "/sessions", {}],
  [`/workspace/${"ID"}/session-info`, "/session-info", {}],
];

/** Members that differ between two reads of the same thing. */
const stable = (body: any) => {
  if (body === null || typeof body !== "object") return body;
  const { durationMs: _d, ...rest } = body;
  if (Array.isArray(rest.cells)) rest.cells = rest.cells.map(({ durationMs: _c, ...c }: any) => c);
  return rest;
};

const qualified = (selector: string, rest: string) => `/workspaces/${encodeURIComponent(selector)}${rest}`;

describe("qualified reads", () => {
  for (const [legacy, rest, query] of READS)
    test(`${rest}: the primary by id and by path answers as ${legacy}`, async () => {
      const legacyReply = await files.get(legacy.replace("ID", id), query);
      expect(legacyReply.status).toBe(200);
      for (const selector of [id, d.workspace]) {
        const reply = await files.get(qualified(selector, rest), query);
        expect(reply.status).toBe(200);
        expect(stable(reply.body)).toEqual(stable(legacyReply.body));
      }
    });

  for (const [, rest, query] of READS)
    test(`${rest}: 404 workspace_not_found for a workspace not served, 400 invalid_workspace for a bad selector`, async () => {
      const unknown = await files.get(qualified("0123456789abcdef", rest), query);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: "workspace_not_found" });
      const elsewhere = await files.get(qualified("/nowhere/served", rest), query);
      expect(elsewhere.status).toBe(404);
      const bad = await files.get(qualified("not-a-workspace", rest), query);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "invalid_workspace" });
    });

  test("the git views and the history routes refuse an unknown workspace too", async () => {
    for (const rest of ["/git", "/git/branches", "/git/log", "/sessions/live-state", "/session/nope/transcript", "/session/nope/export", "/session/nope/archive/export"]) {
      const reply = await files.get(qualified("0123456789abcdef", rest));
      expect([rest, reply.status, reply.body?.code]).toEqual([rest, 404, "workspace_not_found"]);
      const bad = await files.get(qualified("nope", rest));
      expect([rest, bad.status, bad.body?.code]).toEqual([rest, 400, "invalid_workspace"]);
    }
  });

  test("a session the primary does not have is 404 session_not_found on the qualified history routes", async () => {
    for (const rest of ["/session/nope/transcript", "/session/nope/export", "/session/nope/archive/export"]) {
      const reply = await files.get(qualified(id, rest));
      expect([rest, reply.status, reply.body?.code]).toEqual([rest, 404, "session_not_found"]);
    }
  });

  test("a path outside the workspace is refused on the qualified form as on the legacy one", async () => {
    const reply = await files.get(qualified(id, "/file"), { path: "../x" });
    expect(reply.status).toBe(400);
    expect(reply.body.errorKind).toBe("path_outside_workspace");
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });
});

describe("qualified writes", () => {
  test("write and edit on the primary by id land in the workspace", async () => {
    const write = await files.post(qualified(id, "/file/write"), { path: "q.txt", content: "one", mode: "create" });
    expect(write.status).toBe(201);
    const edit = await files.post(qualified(d.workspace, "/file/edit"), { path: "q.txt", oldText: "one", newText: "two", expectedHash: sha256("one") });
    expect(edit.status).toBe(200);
    expect((await files.get("/file", { path: "q.txt" })).body.content).toBe("two");
  });

  test("the qualified write is strict (token required) like the legacy one", async () => {
    const anon = fileRoutes(d);
    const write = await anon.post(qualified(id, "/file/write"), { path: "r.txt", content: "x", mode: "create" });
    expect(write.status).toBe(401);
  });

  test("an untrusted workspace refuses qualified writes with 403 untrusted_workspace", async () => {
    await using untrusted = await startDaemon(["--token", "t"]);
    const client = fileRoutes(untrusted, "t");
    const write = await client.post(qualified(workspaceId(untrusted.workspace), "/file/write"), { path: "b.txt", content: "b", mode: "create" });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ errorKind: "untrusted_workspace" });
    const git = await client.get(qualified(untrusted.workspace, "/git"));
    expect(git.status).toBe(403);
  });
});

test("the OpenAPI document lists the qualified forms with their schemas and tags", async () => {
  const doc = (await files.get("/openapi.json")).body;
  const paths = [
    "/workspaces/{workspace}/file",
    "/workspaces/{workspace}/file/bytes",
    "/workspaces/{workspace}/stat",
    "/workspaces/{workspace}/list",
    "/workspaces/{workspace}/glob",
    "/workspaces/{workspace}/file/write",
    "/workspaces/{workspace}/file/edit",
    "/workspaces/{workspace}/env",
    "/workspaces/{workspace}/preflight",
    "/workspaces/{workspace}/mcp",
    "/workspaces/{workspace}/skills",
    "/workspaces/{workspace}/providers",
    "/workspaces/{workspace}/tools",
    "/workspaces/{workspace}/hooks",
    "/workspaces/{workspace}/git",
    "/workspaces/{workspace}/sessions",
    "/workspaces/{workspace}/sessions/live-state",
    "/workspaces/{workspace}/session-info",
    "/workspaces/{workspace}/session/{id}/transcript",
    "/workspaces/{workspace}/session/{id}/export",
    "/workspaces/{workspace}/session/{id}/archive/export",
  ];
  for (const path of paths) {
    const item = doc.paths[path];
    expect(item, path).toBeDefined();
    const op = item.get ?? item.post;
    expect(op["x-svc-capability"], path).toContain("workspace_qualified_rest_core");
    expect(op.parameters.some((p: { name: string; in: string }) => p.name === "workspace" && p.in === "path"), path).toBe(true);
    expect(op.responses["200"] ?? op.responses["201"], path).toBeDefined();
  }
  expect(doc.paths["/workspaces/{workspace}/session/{id}/archive/export"].get["x-svc-capability"]).toContain("workspace_archived_session_export");
  const caps = (await files.get("/capabilities")).body;
  expect(caps.features).toContain("workspace_qualified_rest_core");
  expect(caps.features).toContain("workspace_archived_session_export");
});
