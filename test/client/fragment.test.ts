/** The web UI's fragment parsing: routes and the one-time token, hostile fragments included. */
import { describe, expect, test } from "bun:test";
import { parseRoute, safeDecode, tokenFromFragment } from "../../src/web/fragment.ts";

describe("parseRoute", () => {
  test("the routes", () => {
    expect(parseRoute("")).toEqual({ view: "home" });
    expect(parseRoute("#/session/a%2Fb")).toEqual({ view: "session", id: "a/b" });
    expect(parseRoute("#/workspace")).toEqual({ view: "workspace" });
    expect(parseRoute("#/files")).toEqual({ view: "files", path: undefined });
    expect(parseRoute("#/files/src/a%20b.ts")).toEqual({ view: "files", path: "src/a b.ts" });
    expect(parseRoute("#/settings")).toEqual({ view: "settings", section: undefined });
    expect(parseRoute("#/settings/mcp")).toEqual({ view: "settings", section: "mcp" });
  });

  test("a malformed percent-escape routes home instead of throwing", () => {
    for (const hash of ["#/session/%", "#/files/%E0%A4%A", "#/files/%zz", "#/session/%E0"]) expect(parseRoute(hash)).toEqual({ view: "home" });
    expect(safeDecode("%")).toBeUndefined();
  });
});

describe("tokenFromFragment", () => {
  test("a well-formed token, encoded or not", () => {
    expect(tokenFromFragment("#token=abc")).toEqual({ present: true, token: "abc" });
    expect(tokenFromFragment("#token=s3cr%25t%26x")).toEqual({ present: true, token: "s3cr%t&x" });
    expect(tokenFromFragment("#/files&token=abc")).toEqual({ present: true, token: "abc" });
    expect(tokenFromFragment("#/session/x")).toEqual({ present: false, token: undefined });
  });

  test("a malformed escape is taken literally and still reported present (so it leaves the address bar); an empty one is no token", () => {
    expect(tokenFromFragment("#token=s3cr%t&x")).toEqual({ present: true, token: "s3cr%t" });
    expect(tokenFromFragment("#token=%E0%A4%A")).toEqual({ present: true, token: "%E0%A4%A" });
    expect(tokenFromFragment("#token=")).toEqual({ present: true, token: undefined });
  });
});
