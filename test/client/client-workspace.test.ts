/**
 * The SDK's `workspace` option: each workspace call goes to its `/workspaces/:workspace/…` form when
 * a workspace is named (by id or path), to its legacy form otherwise, and both answer alike for
 * the primary; an unknown workspace is a typed `workspace_not_found` error.
 */
import { expect, test } from "bun:test";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { contractFetch } from "../helpers/contract.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { writeTree } from "../helpers/file-routes.ts";

test("the workspace option sends each workspace call to its qualified form", async () => {
  await using d = await startDaemon();
  writeTree(d.workspace, { "a.txt": "hello\n" });
  const urls: string[] = [];
  const c = createClient({
    baseUrl: d.url,
    fetch: (url: string, init?: RequestInit) => {
      urls.push(new URL(url).pathname);
      return contractFetch(url, init);
    },
  });
  const id = workspaceId(d.workspace);
  for (const workspace of [id, d.workspace]) {
    expect((await c.readFile("a.txt", { workspace })).content).toBe("hello\n");
    expect((await c.listDirectory(".", false, { workspace })).entries.map((e) => e.name)).toEqual(["a.txt"]);
    expect(await c.workspaceStatus("skills", { workspace })).toEqual(await c.workspaceStatus("skills"));
  }
  expect(urls).toContain(`/workspaces/${id}/file`);
  expect(urls).toContain(`/workspaces/${id}/list`);
  expect(urls).toContain(`/workspaces/${id}/skills`);
  expect(urls).toContain(`/workspaces/${encodeURIComponent(d.workspace)}/file`);
  expect(urls).toContain("/workspace/skills");

  let error: unknown = null;
  await c.readFile("a.txt", { workspace: "0123456789abcdef" }).catch((e) => (error = e));
  expect(error).toBeInstanceOf(DaemonApiError);
  expect((error as DaemonApiError).status).toBe(404);
  expect((error as DaemonApiError).code).toBe("workspace_not_found");
  await c.transcript("missing", { workspace: "0123456789abcdef" }).catch((e) => (error = e));
  expect((error as DaemonApiError).code).toBe("workspace_not_found");
});
