/**
 * Bearer authentication (spec Authentication §1–5, notes §8.3): the uniform 401, scheme handling,
 * the loopback /health exemption and `--require-auth`.
 */
import { describe, expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";
import { startFrontDoor } from "../helpers/front-door.ts";
import { expectUnauthorized } from "../helpers/http-expect.ts";

const TOKEN = "s3cr3t-Token_value.42";
/** Every route this build mounts, besides /health and the web UI's static files (public: web-serving.test.ts). */
const GATED_ROUTES = ["/capabilities", "/daemon/status", "/daemon/status?detail=full", "/docs", "/docs/docs.js", "/docs/docs.css", "/openapi.json"];

describe("with a token configured", () => {
  const refused: [string, Record<string, string>][] = [
    ["a missing header", {}],
    ["the Basic scheme", { Authorization: `Basic ${btoa(`user:${TOKEN}`)}` }],
    ["the Basic scheme carrying the bare token", { Authorization: `Basic ${TOKEN}` }],
    ["an empty header", { Authorization: "" }],
    ["a scheme with no credential", { Authorization: "Bearer" }],
    ["a scheme with only blanks", { Authorization: "Bearer    " }],
    ["a wrong token", { Authorization: "Bearer wrong" }],
    ["the token plus a suffix", { Authorization: `Bearer ${TOKEN}x` }],
    ["a prefix of the token", { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ["the token in another case", { Authorization: `Bearer ${TOKEN.toUpperCase()}` }],
    ["the bare token", { Authorization: TOKEN }],
    ["no separator after the scheme", { Authorization: `Bearer${TOKEN}` }],
    ["another scheme name", { Authorization: `Token ${TOKEN}` }],
    ["a scheme prefix", { Authorization: `Bear ${TOKEN}` }],
    // Six letters, like Bearer, so only the scheme's name tells them apart.
    ["a six-letter scheme", { Authorization: `Digest ${TOKEN}` }],
    ["a six-letter near miss", { Authorization: `Beaver ${TOKEN}` }],
    ["another six-letter near miss", { Authorization: `bearex\t${TOKEN}` }],
    ["two credentials", { Authorization: `Bearer ${TOKEN} ${TOKEN}` }],
    ["the token in another header", { "X-Api-Key": TOKEN, "X-Auth-Token": TOKEN }],
  ];
  test.each(refused)("refuses %s with the uniform 401", async (_what, headers) => {
    await using d = await startDaemon(["--token", TOKEN]);
    await expectUnauthorized(await d.fetch("/capabilities", { headers }));
  });

  test("every refusal is byte-identical (status, body, headers)", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    const shapes = new Set<string>();
    for (const [, headers] of refused) {
      const res = await d.fetch("/capabilities", { headers });
      const h: string[] = [];
      res.headers.forEach((value, name) => name !== "date" && h.push(`${name}: ${value}`));
      h.sort();
      shapes.add(JSON.stringify([res.status, await res.text(), h]));
    }
    expect(shapes.size).toBe(1);
  });

  test.each([
    `Bearer ${TOKEN}`,
    `bearer ${TOKEN}`,
    `BEARER ${TOKEN}`,
    `bEaReR ${TOKEN}`,
    `Bearer    ${TOKEN}`,
    `Bearer\t${TOKEN}`,
    `Bearer \t \t${TOKEN}`,
  ])("accepts %j", async (authorization) => {
    await using d = await startDaemon(["--token", TOKEN]);
    const res = await d.fetch("/capabilities", { headers: { Authorization: authorization } });
    expect(res.status).toBe(200);
  });

  test("a token from SVC_SERVER_TOKEN is enforced like --token", async () => {
    await using d = await startDaemon([], { env: { SVC_SERVER_TOKEN: TOKEN } });
    await expectUnauthorized(await d.fetch("/capabilities"));
    expect((await d.fetch("/capabilities", { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  test.each(GATED_ROUTES)("%s needs the token", async (path) => {
    await using d = await startDaemon(["--token", TOKEN]);
    await expectUnauthorized(await d.fetch(path));
    expect((await d.fetch(path, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  test("unknown routes and every method need the token too", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) await expectUnauthorized(await d.fetch("/nope", { method }));
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) await expectUnauthorized(await d.fetch("/health", { method }));
  });
});

describe("the loopback /health exemption", () => {
  test.each(["/health", "/health?deep=1"])("GET %s answers without a token", async (path) => {
    await using d = await startDaemon(["--token", TOKEN]);
    const res = await d.fetch(path);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("ok");
  });

  test("HEAD /health answers without a token", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    expect((await d.fetch("/health", { method: "HEAD" })).status).toBe(200);
  });

  test("a wrong token does not break the exemption", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    expect((await d.fetch("/health", { headers: { Authorization: "Bearer wrong" } })).status).toBe(200);
  });

  test("only /health itself is exempt", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    for (const path of ["/health/", "/HEALTH", "/health/x", "/healthz", "/health%2F"]) await expectUnauthorized(await d.fetch(path));
  });

  test("--require-auth drops it: /health and /capabilities answer the ordinary 401", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--require-auth"]);
    const health = await d.fetch("/health");
    const caps = await d.fetch("/capabilities");
    const plain = await plainTokenDaemon401();
    await expectUnauthorized(health.clone());
    await expectUnauthorized(caps.clone());
    // An unauthenticated client cannot tell --require-auth from a plain token daemon.
    expect(await caps.text()).toBe(plain);
    expect(await health.text()).toBe(plain);
  });

  test("--require-auth: the require_auth tag is visible once authenticated", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--require-auth"]);
    const res = await d.fetch("/capabilities", { headers: { Authorization: `Bearer ${TOKEN}` } });
    const { features } = (await res.json()) as { features: string[] };
    expect(features.filter((f) => f === "require_auth")).toEqual(["require_auth"]);
    expect((await d.fetch("/health", { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  test("without --require-auth there is no require_auth tag", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    const res = await d.fetch("/capabilities", { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(((await res.json()) as { features: string[] }).features).not.toContain("require_auth");
  });

  test("a non-loopback bind requires the bearer on /health", async () => {
    await using fd = await startFrontDoor(["--hostname", "0.0.0.0", "--token", TOKEN]);
    await expectUnauthorized(await fd.fetch("/health"));
    expect((await fd.fetch("/health", { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe("with no token configured (loopback default)", () => {
  test.each(["/health", "/capabilities", "/daemon/status"])("%s answers without a header", async (path) => {
    await using d = await startDaemon();
    expect((await d.fetch(path)).status).toBe(200);
  });

  test("an Authorization header of any shape is ignored", async () => {
    await using d = await startDaemon();
    for (const authorization of ["Bearer anything", "Basic Zm9vOmJhcg==", "garbage"])
      expect((await d.fetch("/capabilities", { headers: { Authorization: authorization } })).status).toBe(200);
  });
});

/** The 401 body of a daemon with a token but without --require-auth. */
async function plainTokenDaemon401(): Promise<string> {
  await using d = await startDaemon(["--token", TOKEN]);
  return await (await d.fetch("/capabilities")).text();
}
