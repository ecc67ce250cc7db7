/**
 * `GET /workspaces/:workspace/session/:id/archive/export` serves archived sessions only, and the
 * qualified `export` active ones only (the reference's split); both 404 `session_not_found` for a
 * session in the other state, and the qualified transcript serves either.
 */
import { expect, test } from "bun:test";
import { createClient } from "../../src/client/index.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

test("archive/export serves archived sessions, the qualified export active ones", async () => {
  await using d = await fakeAgentDaemon();
  const c = createClient({ baseUrl: d.url, fetch: contractFetch });
  const { sessionId: id } = await c.createSession({ sessionScope: "thread" });
  await c.closeSession(id);
  const base = `/workspaces/${workspaceId(d.workspace)}/session/${id}`;
  const get = async (path: string) => {
    const response = await contractFetch(`${d.url}${path}`);
    const text = await response.text();
    return { status: response.status, text, code: response.headers.get("content-type")?.includes("application/json") ? (JSON.parse(text) as { code?: string }).code : undefined };
  };

  expect((await get(`${base}/export?format=json`)).status).toBe(200);
  const notArchived = await get(`${base}/archive/export?format=json`);
  expect([notArchived.status, notArchived.code]).toEqual([404, "session_not_found"]);

  await c.archiveSessions([id]);
  const archived = await get(`${base}/archive/export?format=json`);
  expect(archived.status).toBe(200);
  expect(archived.text).toContain(id);
  const active = await get(`${base}/export?format=json`);
  expect([active.status, active.code]).toEqual([404, "session_not_found"]);
  expect((await get(`${base}/transcript`)).status).toBe(200);
  // The legacy export is the session's, whatever its archive state.
  expect((await get(`/session/${id}/export?format=json`)).status).toBe(200);
});
