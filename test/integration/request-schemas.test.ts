/**
 * Request checks that live in the route schemas (and so in /openapi.json) answer exactly the bodies
 * the handlers used to: `startupConfig`, `sessionScope`, the `X-Svc-Client-Id` header and the
 * workspace selector. A refused request starts no agent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";

let d: FakeAgentDaemon;
beforeAll(async () => {
  d = await fakeAgentDaemon();
});
afterAll(() => d?.[Symbol.asyncDispose]());

const startupConfigError = (error: string) => ({ error, code: "invalid_startup_config" });

describe("POST /session", () => {
  test.each([
    [{ startupConfig: "fake-model-a" }, "`startupConfig` must be an object"],
    [{ startupConfig: [] }, "`startupConfig` must be an object"],
    [{ startupConfig: null }, "`startupConfig` must be an object"],
    [{ startupConfig: {} }, "`startupConfig.modelServiceId` must be a non-empty string"],
    [{ startupConfig: { modelServiceId: " \t" } }, "`startupConfig.modelServiceId` must be a non-empty string"],
    [{ startupConfig: { modelServiceId: 7 } }, "`startupConfig.modelServiceId` must be a non-empty string"],
    [{ startupConfig: { modelServiceId: "m", reasoningEffort: "extreme" } }, "`startupConfig.reasoningEffort` must be one of none, default, low, medium, high, xhigh, max"],
    [{ startupConfig: { modelServiceId: "m", surprise: 1 } }, 'unknown `startupConfig` field "surprise"'],
    [{ startupConfig: { modelServiceId: "m" }, modelServiceId: "n" }, "`startupConfig` cannot be combined with top-level `modelServiceId`"],
    [{ startupConfig: { modelServiceId: "m" }, sessionScope: "single" }, "`startupConfig` starts a new thread and cannot be combined with `sessionScope: single`"],
  ])("%j is 400 with the handler's message", async (body, error) => {
    const reply = await d.json("POST", "/session", body);
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 400, body: startupConfigError(error) });
  });

  test.each([["team"], [5], [null], [["thread"]]])("sessionScope %j is 400 invalid_session_scope naming the value", async (sessionScope) => {
    const reply = await d.json("POST", "/session", { sessionScope });
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 400,
      body: { error: "`sessionScope` must be `single` or `thread`", code: "invalid_session_scope", sessionScope },
    });
  });

  test("a malformed X-Svc-Client-Id is 400 invalid_client_id with the handler's message", async () => {
    for (const id of ["x".repeat(129), "has space", "é"]) {
      const reply = await d.json("POST", "/session", {}, { "X-Svc-Client-Id": id });
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { error: "`X-Svc-Client-Id` must be a non-empty token of 128 characters or fewer", code: "invalid_client_id" },
      });
    }
  });

  test("none of the refusals started an agent", async () => {
    expect(await d.agentPids()).toEqual([]);
  });
});

describe("GET /workspace/:id/sessions", () => {
  test.each(["not-a-workspace", "0123456789ABCDEF", "0123456789abcde", "relative%2Fpath"])("%s is 400 invalid_workspace", async (selector) => {
    const reply = await d.json("GET", `/workspace/${selector}/sessions`);
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 400,
      body: { error: "`:id` must decode to a workspace id or absolute path", code: "invalid_workspace" },
    });
  });

  test("an absolute path or id of another workspace is 404 workspace_not_found", async () => {
    for (const selector of ["%2Fnowhere", "0123456789abcdef"]) {
      const reply = await d.json("GET", `/workspace/${selector}/sessions`);
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 404, code: "workspace_not_found" });
    }
  });
});
