/**
 * `--allow-origin` patterns: `*` or a canonical `<scheme>://<host>[:<port>]` origin that survives a
 * round trip through URL origin parsing; anything else is `InvalidAllowOriginPatternError` at boot.
 */
import { describe, expect, test } from "bun:test";
import { InvalidAllowOriginPatternError } from "../../src/config/boot-error.ts";
import { onlyLoopbackOrigins, parseOriginPatterns } from "../../src/config/origin-patterns.ts";
import { configFixture } from "../helpers/config.ts";

const NON_CANONICAL: [string, string][] = [
  ["trailing slash", "http://app.example/"],
  ["path", "http://app.example/path"],
  ["query", "http://app.example?q=1"],
  ["empty query", "http://app.example?"],
  ["fragment", "http://app.example#frag"],
  ["userinfo", "http://user@app.example"],
  ["user and password", "http://user:pw@app.example"],
  ["default http port", "http://app.example:80"],
  ["default https port", "https://app.example:443"],
  ["non-http scheme", "ftp://app.example"],
  ["ws scheme", "ws://app.example"],
  ["file URL", "file:///etc"],
  ["javascript URL", "javascript:alert(1)"],
  ["data URL", "data:text/html,x"],
  ["bare host", "app.example"],
  ["scheme-relative", "//app.example"],
  ["garbage", "not a url"],
  ["empty", ""],
  ["the null origin", "null"],
  ["leading space", " http://app.example"],
  ["trailing space", "http://app.example "],
  ["unicode host (origin is punycode)", "http://bücher.example"],
  ["wildcard subdomain", "https://*.example.com/"],
  ["padded port", "http://app.example:03000"],
  ["port out of range", "http://app.example:65536"],
  ["backslash", "http:\\\\app.example"],
];

describe("parseOriginPatterns", () => {
  test.each(NON_CANONICAL)("rejects a %s (%j)", (_what, pattern) => {
    let thrown: unknown;
    try {
      parseOriginPatterns([pattern]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidAllowOriginPatternError);
    const err = thrown as InvalidAllowOriginPatternError;
    expect(err.pattern).toBe(pattern);
    expect(err.message).toStartWith(`InvalidAllowOriginPatternError: --allow-origin ${JSON.stringify(pattern)} `);
    expect(err.message).not.toContain("\n");
  });

  test("suggests the canonical origin when there is one", () => {
    expect(() => parseOriginPatterns(["http://app.example:3000/"])).toThrow('did you mean "http://app.example:3000"');
  });

  test.each([
    ["http://app.example", "http://app.example"],
    ["https://app.example:8443", "https://app.example:8443"],
    ["http://localhost:5173", "http://localhost:5173"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
    ["http://[::1]:3000", "http://[::1]:3000"],
    ["HTTP://App.Example:3000", "http://app.example:3000"],
    ["http://xn--bcher-kva.example", "http://xn--bcher-kva.example"],
  ])("accepts %j, kept as %j", (pattern, stored) => {
    const policy = parseOriginPatterns([pattern]);
    expect(policy.any).toBe(false);
    expect([...policy.origins]).toEqual([stored]);
  });

  test("'*' admits any origin and can sit beside explicit ones", () => {
    expect(parseOriginPatterns(["*"])).toEqual({ any: true, origins: new Set() });
    const both = parseOriginPatterns(["http://a.example", "*"]);
    expect(both.any).toBe(true);
    expect([...both.origins]).toEqual(["http://a.example"]);
  });

  test("one bad pattern among good ones still fails", () => {
    expect(() => parseOriginPatterns(["http://a.example", "http://b.example/", "http://c.example"])).toThrow(InvalidAllowOriginPatternError);
  });

  test("repeats collapse", () => {
    expect([...parseOriginPatterns(["http://a.example", "HTTP://A.EXAMPLE"]).origins]).toEqual(["http://a.example"]);
  });

  test("no patterns: nothing admitted", () => {
    expect(parseOriginPatterns([])).toEqual({ any: false, origins: new Set() });
  });
});

describe("onlyLoopbackOrigins (what a tokenless daemon may admit)", () => {
  test.each<[string[], boolean]>([
    [[], true],
    [["http://localhost:5173"], true],
    [["http://127.0.0.1:8080", "https://[::1]:3000"], true],
    [["http://127.9.9.9:1"], true],
    [["https://app.example"], false],
    [["http://localhost:1", "http://app.example"], false],
    [["http://host.docker.internal:3000"], false],
    [["*"], false],
  ])("%j → %p", (patterns, expected) => {
    expect(onlyLoopbackOrigins(parseOriginPatterns(patterns))).toBe(expected);
  });
});

describe("through resolveConfig", () => {
  test.each(NON_CANONICAL)("a %s fails boot with InvalidAllowOriginPatternError even with a token", async (_what, pattern) => {
    await using fx = configFixture();
    const err = fx.bootError(["--allow-origin", pattern, "--token", "t"]);
    expect(err).toBeInstanceOf(InvalidAllowOriginPatternError);
    expect(err.message).toContain(JSON.stringify(pattern));
  });
});
