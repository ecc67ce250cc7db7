import { describe, expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";

describe("GET /health", () => {
  test("answers ok on a loopback bind without a token", async () => {
    await using d = await startDaemon();
    const res = await d.fetch("/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ status: "ok" });
  });

  test.each(["?deep", "?deep=1", "?deep=true"])("%s adds live counts", async (query) => {
    await using d = await startDaemon();
    const body = (await (await d.fetch(`/health${query}`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "ok", sessions: 0, pendingPermissions: 0, activePrompts: 0 });
  });

  test("deep=0 stays shallow", async () => {
    await using d = await startDaemon();
    expect(await (await d.fetch("/health?deep=0")).json()).toEqual({ status: "ok" });
  });
});
