/**
 * Response schemas document answers and normalise them; they never refuse one. A value that does
 * not match its status's schema (a stale schema, an agent field of an unexpected type) is still
 * answered with its status, not turned into Elysia's 422 and the error mapper's 500.
 */
import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { Logger } from "../../../src/logging/logger.ts";
import { createApp } from "../../../src/server/app.ts";
import { errorResponse } from "../../../src/server/error-response.ts";
import { uncheckResponses } from "../../../src/server/schemas/response-checks.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const quiet = new Logger("error", "text", { write: () => {} });

/** An app configured like the daemon's (TypeBox normalisation, the real error mapper). */
function appAnswering(value: unknown, status: number) {
  const Answer = t.Object({ promptId: t.String(), lastEventId: t.Integer() });
  const app = new Elysia({ normalize: "typebox" })
    .onError(({ code, error }) => errorResponse(code, error, quiet))
    .post(
      "/answer",
      ({ set }) => {
        set.status = status;
        return structuredClone(value);
      },
      { response: { [status]: Answer } },
    );
  uncheckResponses(app.routes as never);
  return app;
}

describe("a response that does not match its schema", () => {
  test("is answered with its own status and body, not a 500", async () => {
    const app = appAnswering({ promptId: "p1", lastEventId: "not a number" }, 202);
    const res = await app.handle(new Request("http://localhost/answer", { method: "POST" }));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ promptId: "p1", lastEventId: "not a number" });
  });

  test("still loses the members its schema does not declare", async () => {
    const app = appAnswering({ promptId: "p1", lastEventId: 3, internal: "secret" }, 202);
    const res = await app.handle(new Request("http://localhost/answer", { method: "POST" }));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ promptId: "p1", lastEventId: 3 });
  });
});

test("the daemon's app marks every response schema of every route, named models included, before any route runs", async () => {
  await using dir = tempDir("svc-app-");
  const { config, logger } = testServerConfig(dir.path, []);
  const deps = testAppDeps(config, logger);
  const { app } = createApp(deps);
  const models = (app as unknown as { getGlobalDefinitions(): { type: Record<string, object> } }).getGlobalDefinitions().type;
  const unchecked: string[] = [];
  const checked: string[] = [];
  for (const route of app.routes as unknown as { method: string; path: string; hooks: { response?: Record<string, unknown> } }[]) {
    for (const [status, schema] of Object.entries(route.hooks.response ?? {})) {
      const resolved = (typeof schema === "string" ? models[schema] : schema) as { noValidate?: boolean };
      (resolved.noValidate === true ? unchecked : checked).push(`${route.method} ${route.path} ${status}`);
    }
  }
  expect(checked).toEqual([]);
  expect(unchecked.length).toBeGreaterThan(100);
  deps.sessions.shutdown();
  await deps.runtimes.stop();
});
