/**
 * Session organization (tag `session_organization`, sessions/organization.ts): groups created,
 * renamed, recolored, reordered and deleted with the reference's error codes and bounds; a
 * session's pin, group, color and sort order; the organized list's order, `group` filters and
 * paging; and all of it kept in the catalog across a restart.
 */
import { describe, expect, test } from "bun:test";
import { MAX_GROUPS } from "../../src/sessions/organization.ts";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("session groups", () => {
  test("create, rename, recolor, reorder and delete, with the reference's errors", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const base = `/workspace/${workspaceId(d.workspace)}/session-groups`;
    expect((await d.json("GET", base)).body).toEqual({ groups: [], colorOptions: ["red", "orange", "yellow", "green", "blue", "purple"] });
    const a = await d.json("POST", base, { name: "  Alpha ", color: "red" });
    expect(a.status).toBe(201);
    expect(a.body.group).toMatchObject({ name: "Alpha", color: "red", order: 0 });
    const b = await d.json("POST", base, { name: "Beta", color: "#A0B0C0" });
    expect(b.body.group).toMatchObject({ name: "Beta", color: "#a0b0c0", order: 1 });
    const refused: [Record<string, unknown>, number, string][] = [
      [{ name: "alpha", color: "red" }, 409, "group_name_conflict"],
      [{ name: "", color: "red" }, 400, "invalid_group_name"],
      [{ name: "x".repeat(65), color: "red" }, 400, "invalid_group_name"],
      [{ name: "a\u202eb", color: "red" }, 400, "invalid_group_name"],
      [{ name: 5, color: "red" }, 400, "invalid_group_name"],
      [{ name: "Gamma", color: "teal" }, 400, "invalid_group_color"],
    ];
    for (const [body, status, code] of refused) {
      const reply = await d.json("POST", base, body);
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status, code });
    }
    // Reorder: Beta first.
    const moved = await d.json("PATCH", `${base}/${b.body.group.id}`, { order: -1, name: "Bravo" });
    expect(moved.body.group).toMatchObject({ name: "Bravo", order: -1 });
    expect((await d.json("PATCH", `${base}/${b.body.group.id}`, { name: "ALPHA" })).body.code).toBe("group_name_conflict");
    expect((await d.json("PATCH", `${base}/${b.body.group.id}`, { order: 1.5 })).body.code).toBe("invalid_group_order");
    expect((await d.json("PATCH", `${base}/nope`, { name: "x" })).status).toBe(404);
    expect(((await d.json("GET", base)).body.groups as { name: string }[]).map((g) => g.name)).toEqual(["Bravo", "Alpha"]);
    // The qualified form sees the same groups.
    expect(((await d.json("GET", `/workspaces/${workspaceId(d.workspace)}/session-groups`)).body.groups as unknown[]).length).toBe(2);
    expect((await d.json("DELETE", `${base}/${a.body.group.id}`)).body).toEqual({ deleted: true });
    expect((await d.json("DELETE", `${base}/${a.body.group.id}`)).body).toEqual({ deleted: false });
  });

  test(`a workspace holds at most ${MAX_GROUPS} groups`, async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const base = `/workspace/${workspaceId(d.workspace)}/session-groups`;
    for (let i = 0; i < MAX_GROUPS; i++) expect((await d.json("POST", base, { name: `g${i}`, color: "blue" })).status).toBe(201);
    const over = await d.json("POST", base, { name: "one more", color: "blue" });
    expect({ status: over.status, code: over.body.code }).toEqual({ status: 400, code: "group_limit_reached" });
    expect((await d.json("GET", "/capabilities")).body.limits).toMatchObject({ maxSessionGroups: MAX_GROUPS, maxSessionGroupNameChars: 64 });
  });
});

describe("session organization", () => {
  test("pins, groups and sort orders order the organized list, filter it, page it, and survive a restart", async () => {
    await using home = tempDir("svc-home-");
    const env = { SVC_HOME: home.path };
    await using workspace = tempDir("svc-ws-");
    const ids: [string, string, string, string] = ["", "", "", ""];
    let groupId = "";
    {
      await using d = await fakeAgentDaemon([], { env, workspace: workspace.path });
      for (let i = 0; i < 4; i++) ids[i] = (await d.createSession({ sessionScope: "thread" })).sessionId;
      groupId = (await d.json("POST", `/workspace/${workspaceId(d.workspace)}/session-groups`, { name: "Work", color: "green" })).body.group.id;
      const pinned = await d.json("PATCH", `/session/${ids[0]}/organization`, { isPinned: true });
      expect(pinned.status).toBe(200);
      expect(pinned.body).toMatchObject({ sessionId: ids[0], isPinned: true, groupId: null, color: null, sortOrder: null });
      expect(typeof pinned.body.pinnedAt).toBe("string");
      expect((await d.json("PATCH", `/workspaces/${workspaceId(d.workspace)}/session/${ids[1]}/organization`, { groupId, sortOrder: 2 })).body).toMatchObject({ groupId, sortOrder: 2 });
      expect((await d.json("PATCH", `/session/${ids[2]}/organization`, { groupId, sortOrder: 1 })).body).toMatchObject({ groupId, sortOrder: 1 });
      const refused: [Record<string, unknown>, number, string][] = [
        [{ isPinned: "yes" }, 400, "invalid_session_organization"],
        [{ groupId: 5 }, 400, "invalid_session_organization"],
        [{ color: "teal" }, 400, "invalid_session_organization"],
        [{ sortOrder: 0.5 }, 400, "invalid_session_organization"],
        [{ groupId: "missing" }, 404, "group_not_found"],
      ];
      for (const [body, status, code] of refused) {
        const reply = await d.json("PATCH", `/session/${ids[3]}/organization`, body);
        expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status, code });
      }
      expect((await d.json("PATCH", "/session/nope/organization", { isPinned: true })).status).toBe(404);
    }
    await using d = await fakeAgentDaemon([], { env, workspace: workspace.path });
    const list = async (query: string) => (await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions?view=organized${query}`)).body;
    const all = await list("");
    // Pinned first, then by sort order, then the rest newest first.
    expect((all.sessions as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([ids[0], ids[2], ids[1], ids[3]]);
    expect(all.sessions[0]).toMatchObject({ isPinned: true, live: false });
    expect(all.sessions[1]).toMatchObject({ groupId, sortOrder: 1, isPinned: false });
    expect(all.sessions[3]).toMatchObject({ groupId: null, color: null, isPinned: false, sortOrder: null });
    expect(((await list("&group=pinned")).sessions as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([ids[0]]);
    expect(((await list(`&group=${groupId}`)).sessions as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([ids[2], ids[1]]);
    expect(((await list("&group=ungrouped")).sessions as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([ids[0], ids[3]]);
    expect((await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions?view=organized&group=missing`)).status).toBe(404);
    // Paged one at a time, the same order.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`&size=1${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...(page.sessions as { sessionId: string }[]).map((s) => s.sessionId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(paged).toEqual([ids[0], ids[2], ids[1], ids[3]]);
    // Deleting the group ungroups its sessions.
    await d.json("DELETE", `/workspace/${workspaceId(d.workspace)}/session-groups/${groupId}`);
    expect(((await list("&group=ungrouped")).sessions as unknown[]).length).toBe(4);
  });
});
