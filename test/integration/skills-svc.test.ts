/**
 * Skills with the built-in agent through the daemon and the mock model: the system prompt lists
 * the workspace's and the user's skills, the `skill` tool gives the model a skill's body,
 * `GET /workspace/skills` reports them (no paths, no bodies), a toggle (`skills.disabled`) hides a
 * skill from the prompt and refuses its invocation, and an untrusted workspace's skills appear
 * nowhere while the user's still do.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "skills-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
type Sent = { messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function?: { name?: string } }> };
const systemOf = (request: unknown) => String((request as Sent).messages[0]!.content);

function writeSkill(dir: string, folder: string, text: string) {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, "SKILL.md"), text);
}

async function setup(model: MockModel, home: string, ws: string, trusted: boolean) {
  writeFileSync(join(home, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, model: { providers: [{ id: "mock", baseUrl: model.baseUrl, apiKeyEnv: "MOCK_KEY", models: ["mock-model"] }] } }));
  writeSkill(join(home, "skills"), "notes", "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nList the commits since the last tag.\n");
  writeSkill(join(ws, ".svc", "skills"), "deploy", "---\nname: deploy\ndescription: \"Deploy the app: build, then ship\"\nargument-hint: \"[env]\"\n---\nRun `make ship` and check the banner says WOMBAT.\n");
  writeSkill(join(ws, ".svc", "skills"), "broken", "no front matter here\n");
  const d = await startDaemon(["--token", TOKEN, ...(trusted ? ["--trust-workspace"] : [])], { workspace: ws, env: { PATH: process.env.PATH, SVC_HOME: home, MOCK_KEY: "test-key" } });
  const call = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);
  const created = await call("POST", "/session", {});
  expect(created.status).toBe(200);
  const sessionId = created.body.sessionId as string;
  const events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
  const turn = async (text: string) => {
    const admitted = await call("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
    expect(admitted.status).toBe(202);
    await events.waitFor("turn_complete", (f: { data: { promptId?: string } }) => f.data.promptId === admitted.body.promptId, 15_000);
  };
  return { d, call, events, turn };
}

/** What the model was told as the result of its last tool call. */
const lastToolResult = (model: MockModel) => {
  const messages = (model.requests.at(-1) as Sent).messages;
  return JSON.stringify(messages.filter((m) => m.role === "tool").at(-1)?.content ?? null);
};

test("built-in agent: skills are listed, invocable, reported and toggled", async () => {
  await using model = startMockModel();
  await using home = tempDir("k-skills-home-");
  await using ws = tempDir("k-skills-ws-");
  const { d, call, events, turn } = await setup(model, home.path, ws.path, true);
  await using _d = d;
  await using _e = events;

  await turn("hello");
  const first = model.requests.at(-1) as Sent;
  expect(systemOf(first)).toContain("- deploy: Deploy the app: build, then ship");
  expect(systemOf(first)).toContain("- release-notes: Write release notes from the git log");
  expect(JSON.stringify(first.tools)).toContain('"skill"');

  model.enqueue({ kind: "tools", calls: [{ name: "skill", args: { skill: "deploy" } }] }, { kind: "text", text: "done" });
  await turn("ship it");
  expect(lastToolResult(model)).toContain("check the banner says WOMBAT");
  expect(lastToolResult(model)).toContain(`Base directory for this skill: ${join(d.workspace, ".svc", "skills", "deploy")}`);

  const listed = await call("GET", "/workspace/skills");
  expect(listed.status).toBe(200);
  expect(listed.body.skills).toEqual([
    { kind: "skill", status: "ok", name: "deploy", description: "Deploy the app: build, then ship", level: "project", modelInvocable: true, argumentHint: "[env]" },
    { kind: "skill", status: "ok", name: "release-notes", description: "Write release notes from the git log", level: "user", modelInvocable: true },
  ]);
  expect(JSON.stringify(listed.body)).not.toContain("WOMBAT");
  expect(JSON.stringify(listed.body.skills)).not.toContain(ws.path);

  const off = await call("POST", "/workspace/skills/deploy/enable", { enabled: false });
  expect(off).toMatchObject({ status: 200, body: { skillName: "deploy", enabled: false, changed: true, activation: "applied", sessionsRefreshed: 1, sessionsFailed: 0 } });
  expect(JSON.parse(readFileSync(join(d.workspace, ".svc", "settings.json"), "utf8")).skills).toEqual({ disabled: ["deploy"] });
  expect((await events.waitFor("settings_changed", undefined, 5000)).data).toMatchObject({ key: "skills.disabled", value: ["deploy"] });
  expect((await call("GET", "/workspace/skills")).body.skills[0]).toMatchObject({ name: "deploy", status: "disabled", disabledReason: "hard" });

  model.enqueue({ kind: "tools", calls: [{ name: "skill", args: { skill: "deploy" } }] }, { kind: "text", text: "done" });
  await turn("ship it again");
  const afterOff = model.requests.at(-2) as Sent;
  expect(systemOf(afterOff)).not.toContain("- deploy:");
  expect(systemOf(afterOff)).toContain("- release-notes:");
  expect(lastToolResult(model)).toContain('skill \\"deploy\\" is disabled');
  expect(lastToolResult(model)).not.toContain("WOMBAT");

  const batch = await call("POST", "/workspace/skills/enable", { skillNames: ["deploy", "release-notes"], enabled: true });
  expect(batch).toMatchObject({ status: 200, body: { results: [{ skillName: "deploy", changed: true }, { skillName: "release-notes", changed: false }] } });
  await turn("and now");
  expect(systemOf(model.requests.at(-1))).toContain("- deploy:");

  // Names compare without case, as the agent reads them; the list is bounded (review R16).
  writeFileSync(join(d.workspace, ".svc", "settings.json"), JSON.stringify({ skills: { disabled: ["DEPLOY"] } }));
  expect(await call("POST", "/workspace/skills/deploy/enable", { enabled: true })).toMatchObject({ status: 200, body: { enabled: true, changed: true } });
  expect(JSON.parse(readFileSync(join(d.workspace, ".svc", "settings.json"), "utf8")).skills.disabled).toEqual([]);
  const junk = Array.from({ length: 1000 }, (_, i) => `junk-${String(i).padStart(4, "0")}`);
  writeFileSync(join(d.workspace, ".svc", "settings.json"), JSON.stringify({ skills: { disabled: junk } }));
  expect(await call("POST", "/workspace/skills/zeta/enable", { enabled: false })).toMatchObject({ status: 409, body: { code: "skills_disabled_full" } });
  writeFileSync(join(d.workspace, ".svc", "settings.json"), "{}");

  const preflight = await call("GET", "/workspace/preflight");
  expect(preflight.body.cells.find((c: { kind: string }) => c.kind === "skills")).toMatchObject({ status: "warning", errorKind: "parse_error", detail: { count: 2, enabled: 2, problems: [{ level: "project", folder: "broken" }] } });

  // A skill the host's settings disable cannot be enabled by a workspace write: the answer says so (review R16).
  const hostSettings = join(home.path, "settings.json");
  writeFileSync(hostSettings, JSON.stringify({ ...JSON.parse(readFileSync(hostSettings, "utf8")), skills: { disabled: ["Release-Notes"] } }));
  expect(await call("POST", "/workspace/skills/release-notes/enable", { enabled: true })).toMatchObject({ status: 200, body: { skillName: "release-notes", enabled: false, disabledByHost: true } });
  const hostBatch = await call("POST", "/workspace/skills/enable", { skillNames: ["deploy", "release-notes"], enabled: true });
  expect(hostBatch.body.results).toEqual([{ skillName: "deploy", enabled: true, changed: false }, { skillName: "release-notes", enabled: false, changed: false, disabledByHost: true }]);
  expect((await call("GET", "/workspace/skills")).body.skills.find((s: { name: string }) => s.name === "release-notes")).toMatchObject({ status: "disabled" });
});

test("built-in agent: an untrusted workspace's skills are neither listed, reported nor invocable; the user's are", async () => {
  await using model = startMockModel();
  await using home = tempDir("k-skills-home-");
  await using ws = tempDir("k-skills-ws-");
  const { d, call, events, turn } = await setup(model, home.path, ws.path, false);
  await using _d = d;
  await using _e = events;

  model.enqueue({ kind: "tools", calls: [{ name: "skill", args: { skill: "deploy" } }] }, { kind: "text", text: "done" });
  await turn("ship it");
  const sent = model.requests.at(-2) as Sent;
  expect(systemOf(sent)).not.toContain("deploy");
  expect(systemOf(sent)).toContain("- release-notes:");
  expect(lastToolResult(model)).toContain('skill \\"deploy\\" not found');
  expect(lastToolResult(model)).not.toContain("WOMBAT");
  expect((await call("GET", "/workspace/skills")).body.skills.map((s: { name: string }) => s.name)).toEqual(["release-notes"]);
  expect(await call("POST", "/workspace/skills/release-notes/enable", { enabled: false })).toMatchObject({ status: 403, body: { code: "untrusted_workspace" } });
});
