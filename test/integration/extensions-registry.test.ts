/**
 * Extensions from an npm registry (a loopback mock serving metadata and tarballs): a scoped package
 * is fetched, checked against its sha512 integrity, unpacked (only what lies under `package/`,
 * nothing executable) and installed as a folder would be, its record naming the package, version
 * and integrity; a dist-tag or exact version picks the version. A tarball that does not match its
 * integrity, a version without one, a path escaping the package folder, an unknown package: each
 * fails its operation and installs nothing. The registry is the daemon's (`SVC_NPM_REGISTRY`),
 * never the workspace's `.npmrc`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "extensions-registry-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

interface Published {
  readonly tgz: Uint8Array;
  readonly integrity: string | null;
}

const manifest = (version: string) => JSON.stringify({ name: "kit", version, description: "A registry kit", contextFileName: "KIT.md" });

async function tarball(files: Record<string, string>): Promise<Uint8Array> {
  return await new Bun.Archive(files, { compress: "gzip" }).bytes();
}

const sha512 = (bytes: Uint8Array) => `sha512-${createHash("sha512").update(bytes).digest("base64")}`;

/** A registry serving `@acme/kit` (1.0.0, 2.0.0 tagged latest, 3.0.0-beta tagged next) and the broken packages. */
async function startRegistry() {
  const versions: Record<string, Record<string, Published>> = {};
  const good = async (version: string) => {
    const tgz = await tarball({ "package/qwen-extension.json": manifest(version), "package/KIT.md": `Kit ${version}\n`, "package/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint\n---\nLint.\n" });
    return { tgz, integrity: sha512(tgz) };
  };
  versions["@acme/kit"] = { "1.0.0": await good("1.0.0"), "2.0.0": await good("2.0.0"), "3.0.0-beta.1": await good("3.0.0-beta.1") };
  const bad = await good("1.0.0");
  versions["@acme/tampered"] = { "1.0.0": { tgz: bad.tgz, integrity: sha512(new TextEncoder().encode("something else")) } };
  versions["@acme/unsigned"] = { "1.0.0": { tgz: bad.tgz, integrity: null } };
  const escaping = await tarball({ "package/qwen-extension.json": manifest("1.0.0"), "other/evil.sh": "echo pwned\n" });
  versions["@acme/escaping"] = { "1.0.0": { tgz: escaping, integrity: sha512(escaping) } };
  versions["@acme/cut"] = { "1.0.0": bad };
  // Several hashes in one integrity string (SRI): the sha512 one is checked.
  versions["@acme/multi"] = { "1.0.0": { tgz: bad.tgz, integrity: `sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA= ${sha512(bad.tgz)}` } };
  const clash = await tarball({ "package/qwen-extension.json": manifest("1.0.0"), "package/a": "file", "package/a/b": "under a file" });
  versions["@acme/clash"] = { "1.0.0": { tgz: clash, integrity: sha512(clash) } };
  const tags: Record<string, Record<string, string>> = { "@acme/kit": { latest: "2.0.0", next: "3.0.0-beta.1" } };
  const server: Bun.Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request): Response {
      const path = decodeURIComponent(new URL(request.url).pathname.slice(1));
      // A tarball cut off mid-body.
      if (path.startsWith("@acme/cut/-/"))
        return new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new Uint8Array(64 * 1024));
              setTimeout(() => controller.error(new Error("cut")), 50);
            },
          }),
        );
      const tar = /^(.+)\/-\/kit-(.+)\.tgz$/.exec(path);
      if (tar) {
        const published = versions[tar[1]!]?.[tar[2]!];
        return published ? new Response(new Blob([published.tgz as Uint8Array<ArrayBuffer>])) : new Response("no", { status: 404 });
      }
      const pkg = versions[path];
      if (!pkg) return new Response(JSON.stringify({ error: "Not found" }), { status: 404 });
      const base: string = `http://127.0.0.1:${server.port}`;
      return Response.json({
        name: path,
        "dist-tags": tags[path] ?? { latest: "1.0.0" },
        versions: Object.fromEntries(
          Object.entries(pkg).map(([v, p]) => [v, { name: path, version: v, dist: { tarball: `${base}/${path}/-/kit-${v}.tgz`, ...(p.integrity ? { integrity: p.integrity } : {}) } }]),
        ),
      });
    },
  });
  return server;
}

let registry: Awaited<ReturnType<typeof startRegistry>>;
let home: TempDir;
let ws: TempDir;
let d: TestDaemon;

beforeAll(async () => {
  registry = await startRegistry();
  home = tempDir("x-reg-home-");
  ws = tempDir("x-reg-ws-");
  // A workspace .npmrc naming another registry is never read.
  writeFileSync(join(ws.path, ".npmrc"), "registry=http://127.0.0.1:9/\n@acme:registry=http://127.0.0.1:9/\n");
  d = await startDaemon(["--token", TOKEN, "--trust-workspace"], { workspace: ws.path, env: { PATH: process.env.PATH, SVC_HOME: home.path, SVC_NPM_REGISTRY: `http://127.0.0.1:${registry.port}/` } });
});

afterAll(async () => {
  await d[Symbol.asyncDispose]();
  registry.stop(true);
  await home[Symbol.asyncDispose]();
  await ws[Symbol.asyncDispose]();
});

const call = (method: string, path: string, body?: unknown) => jsonRequest(d.url, method, path, body, AUTH);

async function install(source: string) {
  const started = await call("POST", "/workspace/extensions/install", { source, consent: true });
  expect(started.status).toBe(202);
  const id = started.body.operationId as string;
  return await until(async () => {
    const op = await call("GET", `/workspace/extensions/operations/${id}`);
    return op.body.status === "succeeded" || op.body.status === "failed" ? op.body : null;
  }, 15_000, `the install of ${source}`);
}

const installedDir = () => join(home.path, "extensions", "kit");

describe("registry extensions", () => {
  test("a scoped package installs its latest version, checked against its integrity, with nothing executable", async () => {
    const op = await install("@acme/kit");
    expect(op).toMatchObject({ status: "succeeded", result: { status: "installed", name: "kit", version: "2.0.0", source: "@acme/kit@2.0.0" } });
    expect(readFileSync(join(installedDir(), "KIT.md"), "utf8")).toBe("Kit 2.0.0\n");
    for (const name of ["KIT.md", "qwen-extension.json", join("skills", "lint", "SKILL.md")]) expect(statSync(join(installedDir(), name)).mode & 0o111).toBe(0);
    const record = JSON.parse(readFileSync(join(installedDir(), ".svc-extension.json"), "utf8"));
    expect(record.source).toEqual({ type: "npm", path: "@acme/kit@2.0.0", integrity: expect.stringMatching(/^sha512-/) });
    const listed = (await call("GET", "/workspace/extensions")).body.extensions;
    expect(listed).toEqual([expect.objectContaining({ name: "kit", version: "2.0.0", installType: "npm", source: "@acme/kit@2.0.0", isActive: true })]);
    expect(existsSync(join(home.path, ".extension-downloads")) ? readdirSync(join(home.path, ".extension-downloads")) : []).toEqual([]);
  });

  test("an exact version or a dist-tag picks the version; a reinstall replaces the copy", async () => {
    expect(await install("@acme/kit@1.0.0")).toMatchObject({ status: "succeeded", result: { version: "1.0.0" } });
    expect(readFileSync(join(installedDir(), "KIT.md"), "utf8")).toBe("Kit 1.0.0\n");
    expect(await install("@acme/kit@next")).toMatchObject({ status: "succeeded", result: { version: "3.0.0-beta.1" } });
  });

  test("a tampered tarball, a version without integrity, an escaping path and an unknown package install nothing", async () => {
    const before = readFileSync(join(installedDir(), "KIT.md"), "utf8");
    for (const [source, pattern] of [
      ["@acme/tampered", /does not match the registry's integrity/],
      ["@acme/unsigned", /no sha512 integrity/],
      ["@acme/escaping", /outside its package folder/],
      ["@acme/missing", /no metadata of @acme\/missing/],
      ["@acme/kit@9.9.9", /no version 9\.9\.9/],
    ] as const) {
      const op = await install(source);
      expect([source, op.status]).toEqual([source, "failed"]);
      expect(op.error).toMatch(pattern);
    }
    expect(readdirSync(join(home.path, "extensions")).filter((n) => !n.startsWith("."))).toEqual(["kit"]);
    expect(readFileSync(join(installedDir(), "KIT.md"), "utf8")).toBe(before);
    expect(existsSync(join(home.path, ".extension-downloads")) ? readdirSync(join(home.path, ".extension-downloads")) : []).toEqual([]);
  });

  test("an integrity naming several hashes is checked by its sha512; a cut answer and an archive that cannot be unpacked fail typed, naming no local path", async () => {
    expect(await install("@acme/multi")).toMatchObject({ status: "succeeded", result: { version: "1.0.0" } });
    expect(await install("@acme/cut")).toMatchObject({ status: "failed", code: "extension_registry_unavailable" });
    const clash = await install("@acme/clash");
    expect(clash).toMatchObject({ status: "failed", code: "extension_archive_invalid" });
    expect(clash.error).not.toContain(home.path);
  });

  test("other remote sources stay refused", async () => {
    for (const source of ["https://example.invalid/kit.tgz", "git@github.com:acme/kit.git", "acme/kit"]) {
      expect((await call("POST", "/workspace/extensions/install", { source, consent: true })).body.code).toBe("extension_source_unsupported");
    }
  });
});
