/**
 * The qualified routes with more than one served workspace, before registration exists: a registry
 * that also serves a workspace nested in the primary (`inner`, untrusted) and one outside it
 * (`other`, trusted). Each route answers from the named workspace's own path and trust; a path of
 * the primary that lands in `inner` (directly or through a link) is an escape; per-workspace
 * objects are dropped once a workspace is no longer served.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../../src/logging/logger.ts";
import type { WorkspaceRuntime } from "../../../src/runtime/workspace-runtime.ts";
import { createApp } from "../../../src/server/app.ts";
import { ScopeCache } from "../../../src/server/scope-cache.ts";
import { RuntimeRegistry } from "../../../src/sessions/runtime-registry.ts";
import { SessionManager } from "../../../src/sessions/session-manager.ts";
import { Store } from "../../../src/store/store.ts";
import { WorkspaceTrust } from "../../../src/trust/index.ts";
import { workspaceId } from "../../../src/workspace/workspace-id.ts";
import type { ManagedScope } from "../../../src/workspace-registry/workspace-scope.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { sha256, writeTree } from "../../helpers/file-routes.ts";
import { tempDir, type TempDir } from "../../helpers/temp-dir.ts";

/** The registry with further scopes, standing in for registration (helper A's part). */
class ManyScopes extends RuntimeRegistry {
  extra: ManagedScope[] = [];
  override scopes(): readonly ManagedScope[] {
    return [this.primaryScope, ...this.extra];
  }
  override resolve(selector: string, param?: string): ManagedScope {
    return this.extra.find((s) => s.path === selector || s.id === selector) ?? super.resolve(selector, param);
  }
}

/** An agent runtime that never started (the status routes read it, none starts it). */
const idleRuntime = (cwd: string) => ({ cwd, channelLive: false, lastStartFailure: null, current: () => null, stop: async () => {} }) as unknown as WorkspaceRuntime;

let root: TempDir;
let outside: TempDir;
let primary: string;
let inner: string;
let other: string;
let registry: ManyScopes;
let store: Store;
let fetchApp: (request: Request) => Response | Promise<Response>;

beforeAll(() => {
  root = tempDir("svc-scopes-");
  outside = tempDir("svc-scopes-other-");
  primary = realpathSync(root.path);
  inner = join(primary, "inner");
  other = realpathSync(outside.path);
  writeTree(primary, { "a.txt": "A\n", "inner/b.txt": "B\n", "inner/deep/c.txt": "C\n" });
  writeTree(other, { "o.txt": "O\n" });
  symlinkSync(inner, join(primary, "to-inner"));
  const { config, logger } = testServerConfig(primary, ["--trust-workspace"]);
  const deps = testAppDeps(config, logger as Logger);
  registry = new ManyScopes(config, logger as Logger, deps.trust);
  const scope = (path: string, trusted: boolean): ManagedScope => ({
    path,
    id: workspaceId(path),
    primary: false,
    trust: new WorkspaceTrust({ dataDir: config.dataDir, workspace: path, folderTrust: config.settings.folderTrust, trustWorkspace: trusted, warn: () => {} }),
    runtime: idleRuntime(path),
    displayName: null,
    persisted: false,
    draining: false,
  });
  registry.extra = [scope(inner, false), scope(other, true)];
  store = new Store(config.dataDir);
  for (const [id, workspace] of [["s-primary", primary], ["s-other", other], ["s-inner", inner]] as const)
    store.sessionStarted({ id, workspace, createdAt: Date.now(), agentSessionId: id, profile: null });
  store.flush();
  const sessions = new SessionManager({ config, logger: logger as Logger, runtimes: registry, store });
  fetchApp = createApp({ ...deps, runtimes: registry, sessions }).fetch;
});

afterAll(async () => {
  store.close();
  await registry.stop();
  await root[Symbol.asyncDispose]();
  await outside[Symbol.asyncDispose]();
});

async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
  const response = await fetchApp(new Request(`http://localhost${path}`, init));
  return { status: response.status, body: await response.json() };
}

const q = (workspace: string, rest: string) => `/workspaces/${encodeURIComponent(workspace)}${rest}`;

describe("each workspace answers from its own root", () => {
  test("a served workspace reads its own files, by id and by path", async () => {
    for (const selector of [other, workspaceId(other)]) {
      const reply = await call("GET", q(selector, "/file?path=o.txt"));
      expect(reply.status).toBe(200);
      expect(reply.body.content).toBe("O\n");
    }
    expect((await call("GET", q(inner, "/file?path=b.txt"))).body.content).toBe("B\n");
    expect((await call("GET", q(other, "/file?path=a.txt"))).status).toBe(404);
  });

  test("the status snapshots are the named workspace's", async () => {
    for (const section of ["/env", "/mcp", "/tools", "/preflight"]) {
      const reply = await call("GET", q(other, section));
      expect([section, reply.status, reply.body.workspaceCwd]).toEqual([section, 200, other]);
    }
  });

  test("writes follow the named workspace's trust: 403 on the untrusted one, allowed on the trusted one", async () => {
    const refused = await call("POST", q(inner, "/file/write"), { path: "new.txt", content: "x", mode: "create" });
    expect(refused.status).toBe(403);
    expect(refused.body.errorKind).toBe("untrusted_workspace");
    expect(existsSync(join(inner, "new.txt"))).toBe(false);
    const edit = await call("POST", q(inner, "/file/edit"), { path: "b.txt", oldText: "B", newText: "b", expectedHash: sha256("B\n") });
    expect(edit.status).toBe(403);
    const written = await call("POST", q(other, "/file/write"), { path: "w.txt", content: "w", mode: "create" });
    expect(written.status).toBe(201);
    expect(existsSync(join(other, "w.txt"))).toBe(true);
  });

  test("the git views follow the named workspace's trust", async () => {
    const reply = await call("GET", q(inner, "/git"));
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe("untrusted_workspace");
  });
});

describe("sessions and history are the named workspace's", () => {
  test("each workspace lists and counts its own sessions only", async () => {
    for (const [workspace, id] of [[primary, "s-primary"], [other, "s-other"], [inner, "s-inner"]] as const) {
      const list = await call("GET", q(workspace, "/sessions"));
      expect(list.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([id]);
      expect((await call("GET", q(workspace, "/session-info"))).body.total).toBe(1);
    }
  });

  test("a session's history answers under its own workspace only (404 session_not_found under another)", async () => {
    expect((await call("GET", q(other, "/session/s-other/transcript"))).status).toBe(200);
    for (const [workspace, id] of [[primary, "s-other"], [other, "s-primary"], [primary, "s-inner"]] as const) {
      const reply = await call("GET", q(workspace, `/session/${id}/transcript`));
      expect([workspace, id, reply.status, reply.body.code]).toEqual([workspace, id, 404, "session_not_found"]);
    }
  });

  test("an untrusted registered workspace's history is 403 untrusted_workspace", async () => {
    const reply = await call("GET", q(inner, "/session/s-inner/transcript"));
    expect([reply.status, reply.body.code]).toEqual([403, "untrusted_workspace"]);
  });
});

describe("a path of the primary into a nested workspace is an escape", () => {
  for (const [form, prefixOf] of [
    ["legacy", () => ""],
    ["qualified", () => q(workspaceId(primary), "")],
  ] as const) {
    test(`${form}: directly inside it is path_outside_workspace, for reads and writes`, async () => {
      const prefix = prefixOf();
      for (const path of ["inner/b.txt", "inner", "inner/deep/c.txt", `${inner}/b.txt`]) {
        const read = await call("GET", `${prefix}/file?path=${encodeURIComponent(path)}`);
        expect([path, read.status, read.body.errorKind]).toEqual([path, 400, "path_outside_workspace"]);
      }
      expect((await call("GET", `${prefix}/stat?path=inner`)).body.errorKind).toBe("path_outside_workspace");
      expect((await call("GET", `${prefix}/list?path=inner/deep`)).body.errorKind).toBe("path_outside_workspace");
      const write = await call("POST", `${prefix}/file/write`, { path: "inner/made.txt", content: "x", mode: "create" });
      expect(write.body.errorKind).toBe("path_outside_workspace");
      expect(existsSync(join(inner, "made.txt"))).toBe(false);
    });

    test(`${form}: through a symbolic link it is symlink_escape, for reads and writes`, async () => {
      const prefix = prefixOf();
      const read = await call("GET", `${prefix}/file?path=to-inner/b.txt`);
      expect([read.status, read.body.errorKind]).toEqual([400, "symlink_escape"]);
      const bytes = await call("GET", `${prefix}/file/bytes?path=to-inner/b.txt`);
      expect(bytes.body.errorKind).toBe("symlink_escape");
      const write = await call("POST", `${prefix}/file/write`, { path: "to-inner/made.txt", content: "x", mode: "create" });
      expect(write.body.errorKind).toBe("symlink_escape");
      expect(existsSync(join(inner, "made.txt"))).toBe(false);
      const glob = await call("GET", `${prefix}/glob?pattern=${encodeURIComponent("**/*.txt")}&cwd=to-inner`);
      expect(glob.body.errorKind).toBe("symlink_escape");
    });

    test(`${form}: glob leaves the nested workspace's files out; the primary's own still read`, async () => {
      const prefix = prefixOf();
      const glob = await call("GET", `${prefix}/glob?pattern=${encodeURIComponent("**/*.txt")}`);
      expect(glob.status).toBe(200);
      expect(glob.body.matches).toEqual(["a.txt"]);
      expect((await call("GET", `${prefix}/file?path=a.txt`)).body.content).toBe("A\n");
    });
  }

  test("a git cwd inside the nested workspace is refused", async () => {
    const reply = await call("GET", q(primary, "/git?cwd=inner"));
    expect(reply.status).toBe(400);
    expect(reply.body.errorKind).toBe("path_outside_workspace");
  });
});

test("per-workspace objects are built once per workspace, anew for a new scope of the same id, and dropped when it is no longer served", () => {
  let built = 0;
  const cache = new ScopeCache(registry, () => ++built);
  const saved = registry.extra;
  const [first, second] = saved as [ManagedScope, ManagedScope];
  try {
    expect(cache.get(first)).toBe(1);
    expect(cache.get(first)).toBe(1);
    expect(cache.get(second)).toBe(2);
    // The same id served by a new scope (removed, then registered again) is built anew.
    const again = { ...first };
    registry.extra = [again, second];
    expect(cache.get(again)).toBe(3);
    // A workspace no longer served loses its entry at the next miss.
    registry.extra = [again];
    expect(cache.get(registry.primaryScope)).toBe(4);
    expect(cache.size).toBe(2);
  } finally {
    registry.extra = saved;
  }
});
