/**
 * Session source metadata (`sourceType`/`sourceId` on `POST /session`, `session-source.ts`): the
 * reference daemon's rules and error bodies, the answers that carry the source (create, attach,
 * status, every list), the catalog keeping it across a restart, and the lists' `sourceType=` filter.
 */
import { describe, expect, test } from "bun:test";
import { workspaceId } from "../../src/workspace/workspace-id.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TYPE_RULE = "`sourceType` must match [a-z][a-z0-9_-]{0,63} when provided";
const ID_RULE = "`sourceId` must be a non-empty string of at most 256 characters without control characters";

describe("POST /session", () => {
  test("refuses a source that breaks the reference's rules, naming the rule, and starts nothing", async () => {
    await using d = await fakeAgentDaemon();
    const refused: [Record<string, unknown>, string, string][] = [
      [{ sourceType: "Web" }, "invalid_session_source", TYPE_RULE],
      [{ sourceType: "9web" }, "invalid_session_source", TYPE_RULE],
      [{ sourceType: "w".repeat(65) }, "invalid_session_source", TYPE_RULE],
      [{ sourceType: 5 }, "invalid_session_source", TYPE_RULE],
      [{ sourceType: "" }, "invalid_session_source", TYPE_RULE],
      [{ sourceId: "tab-1" }, "invalid_session_source", TYPE_RULE],
      [{ sourceType: "web", sourceId: "" }, "invalid_session_source", ID_RULE],
      [{ sourceType: "web", sourceId: "i".repeat(257) }, "invalid_session_source", ID_RULE],
      [{ sourceType: "web", sourceId: "a\nb" }, "invalid_session_source", ID_RULE],
      [{ sourceType: "web", sourceId: "a\u007fb" }, "invalid_session_source", ID_RULE],
      // A lone surrogate would be stored as U+FFFD, not as sent.
      [{ sourceType: "web", sourceId: "\ud800x" }, "invalid_session_source", ID_RULE],
      [{ sourceType: "web", sourceId: "x\udfff" }, "invalid_session_source", ID_RULE],
      [{ sourceType: "web", sourceId: ["x"] }, "invalid_session_source", ID_RULE],
      [{ sourceType: "standalone" }, "reserved_session_source", "The requested session source is reserved for daemon-owned standalone sessions."],
      [{ sourceType: "default", sourceId: "realtime_voice:1" }, "reserved_session_source", "The requested session source is reserved for daemon-owned Live Voice sessions."],
    ];
    for (const [body, code, error] of refused) {
      const reply = await d.json("POST", "/session", { sessionScope: "thread", ...body });
      expect({ body, status: reply.status, answer: reply.body }).toEqual({ body, status: 400, answer: { error, code } });
    }
    expect(await d.agentPids()).toEqual([]);
  });

  test("the source is answered on create, attach and status, kept in the catalog across a restart, and filters the lists", async () => {
    await using home = tempDir("svc-home-");
    const env = { SVC_HOME: home.path };
    await using workspace = tempDir("svc-ws-");
    let web: string;
    let plain: string;
    let tab2: string;
    {
      await using d = await fakeAgentDaemon([], { env, workspace: workspace.path });
      const created = await d.createSession({ sourceType: "web_shell", sourceId: "tab-1" });
      web = created.sessionId;
      expect(created).toMatchObject({ attached: false, sourceType: "web_shell", sourceId: "tab-1", sourcePersisted: true });
      // Attaching to the default session answers its own source; the one asked for is not recorded.
      const attached = await d.createSession({ sourceType: "cli" });
      expect(attached).toMatchObject({ sessionId: web, attached: true, sourceType: "web_shell", sourceId: "tab-1" });
      const plainReply = await d.createSession({ sessionScope: "thread" });
      expect(plainReply).not.toHaveProperty("sourcePersisted");
      plain = plainReply.sessionId;
      tab2 = (await d.createSession({ sessionScope: "thread", sourceType: "web_shell", sourceId: "tab-2" })).sessionId;
      expect((await d.json("GET", `/session/${web}/status`)).body).toMatchObject({ sourceType: "web_shell", sourceId: "tab-1" });
      expect((await d.json("GET", `/session/${plain}/status`)).body).not.toHaveProperty("sourceType");

      const ids = async (query: string) => ((await d.json("GET", `/workspace/${workspaceId(d.workspace)}/sessions${query}`)).body.sessions as { sessionId: string }[]).map((s) => s.sessionId).sort();
      expect(await ids("?sourceType=web_shell")).toEqual([web, tab2].sort());
      expect(await ids("?sourceType=web_shell&sourceId=tab-2")).toEqual([tab2]);
      expect(await ids("?sourceType=cli")).toEqual([]);
      expect(await ids("")).toEqual([web, plain, tab2].sort());
    }
    // Persisted, not live: the catalog row answers.
    await using d = await fakeAgentDaemon([], { env, workspace: workspace.path });
    for (const path of [`/workspace/${workspaceId(d.workspace)}/sessions?sourceType=web_shell`, `/workspaces/${workspaceId(d.workspace)}/sessions?sourceType=web_shell`]) {
      const list = await d.json("GET", path);
      expect(list.status).toBe(200);
      const byId = Object.fromEntries((list.body.sessions as { sessionId: string }[]).map((s) => [s.sessionId, s]));
      expect(Object.keys(byId).sort()).toEqual([web, tab2].sort());
      expect(byId[web]).toMatchObject({ live: false, sourceType: "web_shell", sourceId: "tab-1" });
      expect(byId[tab2]).toMatchObject({ live: false, sourceType: "web_shell", sourceId: "tab-2" });
    }
    const catalog = await d.json("POST", "/sessions/catalog", { sessionIds: [web, plain] });
    expect(catalog.body.sessions[0]).toMatchObject({ sessionId: web, sourceType: "web_shell", sourceId: "tab-1" });
    expect(catalog.body.sessions[1]).not.toHaveProperty("sourceType");
    // A restored session keeps its source.
    expect((await d.json("POST", `/session/${web}/load`, {})).status).toBe(200);
    expect((await d.json("GET", `/session/${web}/status`)).body).toMatchObject({ sourceType: "web_shell", sourceId: "tab-1" });
  });

  test("a list refuses a malformed source filter, and a cursor made under another filter", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    for (const n of [1, 2]) await d.createSession({ sessionScope: "thread", sourceType: "web", sourceId: `t${n}` });
    const list = `/workspace/${workspaceId(d.workspace)}/sessions`;
    expect(await d.json("GET", `${list}?sourceType=BAD`)).toMatchObject({ status: 400, body: { code: "invalid_session_source", error: TYPE_RULE } });
    expect(await d.json("GET", `${list}?sourceId=t1`)).toMatchObject({ status: 400, body: { code: "invalid_session_source", error: TYPE_RULE } });
    // The reserved sources may be listed (they are refused on creation only).
    expect(await d.json("GET", `${list}?sourceType=standalone`)).toMatchObject({ status: 200, body: { sessions: [] } });
    const first = await d.json("GET", `${list}?sourceType=web&size=1`);
    expect(first.body.sessions).toHaveLength(1);
    expect(typeof first.body.nextCursor).toBe("string");
    expect((await d.json("GET", `${list}?sourceType=web&size=1&cursor=${first.body.nextCursor}`)).body.sessions).toHaveLength(1);
    expect(await d.json("GET", `${list}?size=1&cursor=${first.body.nextCursor}`)).toMatchObject({ status: 400, body: { code: "invalid_cursor" } });
  });
});

describe("view=organized", () => {
  test("an unorganized session is answered with no group, color, pin or sort order; `pinned` is empty; an unknown group is 404", async () => {
    await using home = tempDir("svc-home-");
    await using d = await fakeAgentDaemon([], { env: { SVC_HOME: home.path } });
    const { sessionId } = await d.createSession({ sessionScope: "thread" });
    const list = `/workspace/${workspaceId(d.workspace)}/sessions`;
    const plain = (await d.json("GET", list)).body.sessions;
    for (const group of ["", "&group=all", "&group=ungrouped"]) {
      const reply = await d.json("GET", `${list}?view=organized${group}`);
      expect({ group, status: reply.status }).toEqual({ group, status: 200 });
      expect(reply.body.sessions).toEqual(plain.map((s: object) => ({ ...s, groupId: null, color: null, isPinned: false, sortOrder: null })));
      expect(reply.body.sessions[0].sessionId).toBe(sessionId);
    }
    expect((await d.json("GET", `${list}?view=organized&group=pinned`)).body).toEqual({ sessions: [] });
    expect(await d.json("GET", `${list}?view=organized&group=g1`)).toMatchObject({ status: 404, body: { code: "group_not_found", field: "group", error: "Group not found: g1" } });
    expect(await d.json("GET", `${list}?group=all`)).toMatchObject({ status: 400, body: { code: "invalid_session_group_filter" } });
    expect(await d.json("GET", `${list}?view=flat`)).toMatchObject({ status: 400, body: { code: "invalid_session_view", error: '`view` must be "organized"' } });
  });
});
