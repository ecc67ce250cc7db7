/**
 * Builds the single `svc` binary: `bun build.ts [--outfile dist/svc] [--target bun-linux-arm64]
 * [--release-key <minisign public key>] [--version <version>]` (`--release-key` for releases signed
 * with a key other than the project's, `src/release/public-key.ts`; `--version` stamps that version
 * instead of the package's, for the update tests' old and new builds).
 *
 * The executable is minified (white space and syntax, not identifiers: see MINIFY), split into
 * chunks that load when first imported (the daemon's boot path is ~90 KB of the bundle; its core,
 * the built-in agent and the commands are chunks of their own, `src/server/lazy-seams.ts`), stamped
 * with `<package version>+<short git sha>` (the sha only when git is available), and ignores any
 * `.env` or `bunfig.toml` in the directory it runs from: the daemon's configuration comes from its
 * flags, environment and settings files, never from a stray project file.
 *
 * No bytecode: it weighs more than the code it compiles (+1.6 MB; the payload is bounded below).
 * Its price in time, measured on a loaded 2-core machine: parsing the ~90 KB boot path (~8 ms of
 * CPU before the first /health), and the first load of the core (~35 ms) and of the built-in agent
 * (~20 ms).
 *
 * The ACP SDK's generated zod schemas are built on first use, not when the SDK loads
 * (`build/lazy-acp-schemas.ts`): that saves tens of ms on the way to the first session.
 *
 * Beside the binary go `<outfile>.sha256` in `sha256sum` format and `<outfile>.modules.json`, what each embedded chunk holds (the module guard,
 * `test/e2e/boot-modules.test.ts`, reads it to name what a running daemon has loaded).
 * The web UI (`src/web/`, an HTML import of the server) is bundled into the binary by the same
 * build; the size a browser downloads is printed (`web ui N KB gzipped`, target ≤ 150 KB, and
 * how much of it the first paint loads).
 *
 * Last, the application's payload: the binary's size minus that of a bare compiled runtime of the
 * same Bun and target (an empty script, compiled once and its size kept in `dist/bare-runtime.json`
 * by Bun version and target). Above PAYLOAD_BOUND_BYTES the build fails.
 */
import { createHash } from "node:crypto";
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { lazyAcpSchemas } from "./build/lazy-acp-schemas.ts";
import { version as packageVersion } from "./package.json";

const ROOT = import.meta.dir;
const USAGE = "usage: bun build.ts [--outfile <path>] [--target <bun target, e.g. bun-linux-arm64>] [--release-key <minisign public key>] [--version <version>]";

function readArgs() {
  try {
    return parseArgs({
      args: Bun.argv.slice(2),
      options: { outfile: { type: "string", default: "dist/svc" }, target: { type: "string" }, "release-key": { type: "string" }, version: { type: "string" } },
      strict: true,
    }).values;
  } catch (err) {
    console.error(`build.ts: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const values = readArgs();
const outfile = resolve(values.outfile);

/**
 * HEAD's sha cut to 12 hex digits, or null outside a git checkout or without git. A fixed length, not
 * git's default abbreviation (which grows with the number of objects in the clone), so every clone of
 * a commit stamps the same version and builds the same bytes.
 */
function gitShortSha(): string | null {
  try {
    const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
    const sha = git.stdout.toString().trim();
    return git.exitCode === 0 && /^[0-9a-f]+$/.test(sha) ? sha : null;
  } catch {
    return null; // git is not installed
  }
}

/**
 * Identifiers stay unminified because libraries in the bundle key behaviour on function and class
 * names. Elysia's compiled validators catch a failed query/params/headers/body transform (e.g. the
 * range check of a `t.Integer` query field) with `error.constructor.name === 'TransformDecodeError'`;
 * renamed to a single letter, the check misses, the error is swallowed, and the handler runs with the
 * unchecked value (`/file/bytes?maxBytes=-1` answered 503 instead of 400). Bun's `keepNames` would be
 * the narrower fix, but in Bun 1.4 it does not keep the names of declared classes. The cost of
 * readable identifiers: ~0.35 MB of binary and no measurable cold start (bench/, `--baseline`).
 */
const MINIFY = { whitespace: true, syntax: true, identifiers: false } as const;

/**
 * The MCP SDK's client imports its default JSON Schema validator, Ajv (with ajv-formats and
 * fast-uri: ~170 KB of bundle), even when it is given another. The built-in agent gives it the SDK's
 * @cfworker/json-schema validator (`src/builtin-agent/mcp/mcp-servers.ts`), so in the binary the Ajv
 * provider's two imports are stubs that throw if ever called (`test/e2e/binary.test.ts` checks that
 * no Ajv module is embedded; the MCP tests run the binary's agent).
 */
const withoutAjv: Bun.BunPlugin = {
  name: "svc-mcp-without-ajv",
  setup(build) {
    build.onResolve({ filter: /^ajv(-formats)?$/ }, (args) => (args.importer.includes("@modelcontextprotocol") ? { path: args.path, namespace: "svc-without-ajv" } : undefined));
    build.onLoad({ filter: /.*/, namespace: "svc-without-ajv" }, (args) => ({
      contents: `export default function unbundled() { throw new Error(${JSON.stringify(`${args.path} is not in the svc binary: its MCP client validates with @cfworker/json-schema`)}); }\n`,
      loader: "js",
    }));
  },
};

/**
 * Elysia imports `file-type` (with strtok3, @tokenizer/inflate and debug, ~90 KB) only to check the
 * declared type of an uploaded file (`t.File({ type })`); no svc route takes a file upload, so the
 * import is a stub that throws if ever called (`test/e2e/binary.test.ts` checks that none of those
 * modules is embedded).
 */
const withoutFileType: Bun.BunPlugin = {
  name: "svc-elysia-without-file-type",
  setup(build) {
    build.onResolve({ filter: /^file-type$/ }, (args) => (args.importer.includes("elysia") ? { path: args.path, namespace: "svc-without-file-type" } : undefined));
    build.onLoad({ filter: /.*/, namespace: "svc-without-file-type" }, () => ({
      contents: `export function fileTypeFromBlob() { throw new Error("file-type is not in the svc binary: no route takes a file upload"); }\n`,
      loader: "js",
    }));
  },
};

const sha = gitShortSha();
const version = values.version ?? (sha === null ? packageVersion : `${packageVersion}+${sha}`);

/** The application's bytes in the binary may not exceed this (binary − bare runtime). */
const PAYLOAD_BOUND_BYTES = 3_000_000;

const compileOptions = {
  autoloadDotenv: false,
  autoloadBunfig: false,
  ...(values.target ? { target: values.target as Bun.Build.CompileTarget } : {}),
};

const build = await Bun.build({
  entrypoints: [join(ROOT, "src", "main.ts")],
  minify: MINIFY,
  plugins: [withoutAjv, withoutFileType, lazyAcpSchemas],
  // Dynamically imported modules become separate embedded chunks, read and evaluated only when
  // first imported.
  splitting: true,
  format: "esm",
  metafile: true,
  define: {
    SVC_BUILD_VERSION: JSON.stringify(version),
    // The release signing key the binary trusts, when a release is signed with a key other than the project's.
    ...(values["release-key"] ? { SVC_RELEASE_PUBLIC_KEY: JSON.stringify(values["release-key"]) } : {}),
  },
  compile: { outfile, ...compileOptions },
});
await Bun.write(`${outfile}.modules.json`, `${JSON.stringify(chunkManifest(build.metafile), null, 1)}\n`);

/**
 * Embedded chunk file name → the modules bundled into it (repo-relative source paths, packages as
 * `node_modules/<name>/…`). The entry chunk is listed under `entry`, as it runs under the binary's name.
 */
function chunkManifest(metafile: Bun.BuildMetafile | undefined): { entry: string; chunks: Record<string, string[]> } {
  if (metafile === undefined) throw new Error("Bun.build returned no metafile");
  // The metafile's paths are relative to the working directory, packages through node_modules' real path.
  const source = (path: string) => {
    const fromRoot = relative(ROOT, resolve(path));
    const pkg = fromRoot.indexOf("node_modules/");
    return pkg === -1 ? fromRoot : fromRoot.slice(pkg);
  };
  const chunks: Record<string, string[]> = {};
  let entry = "";
  for (const [path, output] of Object.entries(metafile.outputs)) {
    const name = basename(path);
    if (output.entryPoint !== undefined && source(output.entryPoint) === "src/main.ts") entry = name;
    chunks[name] = Object.keys(output.inputs).map(source);
  }
  return { entry, chunks };
}

// Hash the binary chunk by chunk rather than reading ~100 MB into memory at once.
const hash = createHash("sha256");
for await (const chunk of createReadStream(outfile)) hash.update(chunk);
await Bun.write(`${outfile}.sha256`, `${hash.digest("hex")}  ${basename(outfile)}\n`);

/**
 * The web UI's JS + CSS as a browser receives them gzipped, in bytes: the UI bundled again on its
 * own with the binary's minification and splitting (the compile step does not report its embedded
 * outputs). `firstPaint` is what the page shell loads; `total` adds the chunks loaded on demand
 * (the highlighter).
 */
async function webUiGzippedBytes(): Promise<{ firstPaint: number; total: number }> {
  const build = await Bun.build({ entrypoints: [join(ROOT, "src", "web", "index.html")], minify: MINIFY, splitting: true });
  if (!build.success) throw new AggregateError(build.logs, "bundling the web UI failed");
  const html = await build.outputs.find((output) => output.path.endsWith(".html"))!.text();
  const sizes = { firstPaint: 0, total: 0 };
  for (const output of build.outputs) {
    if (!/\.(js|css)$/.test(output.path)) continue;
    const gzipped = Bun.gzipSync(new Uint8Array(await output.arrayBuffer())).byteLength;
    sizes.total += gzipped;
    if (html.includes(basename(output.path))) sizes.firstPaint += gzipped;
  }
  return sizes;
}

/**
 * The size of a bare compiled runtime of this Bun for this target: an empty script compiled with
 * the binary's options, measured once per Bun version and target and kept in `dist/bare-runtime.json`.
 */
async function bareRuntimeBytes(): Promise<number> {
  const cachePath = join(ROOT, "dist", "bare-runtime.json");
  const key = `${Bun.version} ${values.target ?? `bun-${process.platform}-${process.arch}`}`;
  const cache = (await Bun.file(cachePath).exists()) ? ((await Bun.file(cachePath).json()) as Record<string, number>) : {};
  if (typeof cache[key] === "number") return cache[key];
  const scratch = mkdtempSync(join(tmpdir(), "svc-bare-"));
  try {
    await Bun.write(join(scratch, "empty.ts"), "");
    await Bun.build({ entrypoints: [join(scratch, "empty.ts")], compile: { outfile: join(scratch, "bare"), ...compileOptions } });
    cache[key] = Bun.file(join(scratch, "bare")).size;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  await Bun.write(cachePath, `${JSON.stringify(cache, null, 1)}\n`);
  return cache[key];
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (svc ${version}${values.target ? `, ${values.target}` : ""})`);
console.log(`size ${size} bytes (${(size / 1024 / 1024).toFixed(1)} MiB); checksum in ${outfile}.sha256`);
const web = await webUiGzippedBytes();
console.log(`web ui ${(web.total / 1000).toFixed(1)} KB gzipped (JS + CSS), ${(web.firstPaint / 1000).toFixed(1)} KB at first paint, the rest on demand`);
const bare = await bareRuntimeBytes();
const payload = size - bare;
console.log(`app payload ${payload} bytes (${mb(payload)}; bound ${mb(PAYLOAD_BOUND_BYTES)}): binary ${mb(size)} − bare Bun ${Bun.version} runtime ${mb(bare)}`);
if (payload > PAYLOAD_BOUND_BYTES) {
  console.error(`build.ts: the application's payload is ${mb(payload)}, above its bound of ${mb(PAYLOAD_BOUND_BYTES)}: shrink what the binary embeds`);
  process.exit(1);
}
