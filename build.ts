/**
 * Builds the single `svc` binary: `bun build.ts [--outfile dist/svc] [--target bun-linux-arm64]`.
 *
 * The executable is minified (white space and syntax, not identifiers: see MINIFY), its top-level
 * code compiled to bytecode (parsing the bundle at every start was most of the cold start: ~110 ms →
 * ~40 ms; depth 0 costs ~0.8 MB of binary where full depth costs ~4 MB for a few ms more), stamped
 * with `<package version>+<short git sha>` (the sha only when git is available), and ignores any
 * `.env` or `bunfig.toml` in the directory it runs from: the daemon's configuration comes from its
 * flags, environment and settings files, never from a stray project file.
 * Beside it goes `<outfile>.sha256` in `sha256sum` format, which `install.sh` checks downloads against.
 * The web UI (`src/web/`, an HTML import of the server) is bundled into the binary by the same
 * build; the size a browser downloads is printed last (`web ui N KB gzipped`, target ≤ 150 KB).
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { version as packageVersion } from "./package.json";

const ROOT = import.meta.dir;
const USAGE = "usage: bun build.ts [--outfile <path>] [--target <bun target, e.g. bun-linux-arm64>]";

function readArgs() {
  try {
    return parseArgs({
      args: Bun.argv.slice(2),
      options: { outfile: { type: "string", default: "dist/svc" }, target: { type: "string" } },
      strict: true,
    }).values;
  } catch (err) {
    console.error(`build.ts: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const values = readArgs();
const outfile = resolve(values.outfile);

/** The short sha of HEAD, or null outside a git checkout or without git. */
function gitShortSha(): string | null {
  try {
    const git = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
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

const sha = gitShortSha();
const version = sha === null ? packageVersion : `${packageVersion}+${sha}`;

await Bun.build({
  entrypoints: [join(ROOT, "src", "main.ts")],
  minify: MINIFY,
  bytecode: true,
  bytecodeDepth: 0,
  // Lazily imported modules (the ACP SDK, the OpenAPI generator) become separate embedded chunks
  // that are read only when first imported: ~1 MB less resident memory at idle.
  splitting: true,
  format: "esm",
  define: { SVC_BUILD_VERSION: JSON.stringify(version) },
  compile: {
    outfile,
    autoloadDotenv: false,
    autoloadBunfig: false,
    ...(values.target ? { target: values.target as Bun.Build.CompileTarget } : {}),
  },
});

// Hash the binary chunk by chunk rather than reading ~100 MB into memory at once.
const hash = createHash("sha256");
for await (const chunk of createReadStream(outfile)) hash.update(chunk);
await Bun.write(`${outfile}.sha256`, `${hash.digest("hex")}  ${basename(outfile)}\n`);

/**
 * The web UI's JS + CSS as a browser receives them gzipped, in bytes: the UI bundled again on its
 * own with the binary's minification (the compile step does not report its embedded outputs).
 */
async function webUiGzippedBytes(): Promise<number> {
  const build = await Bun.build({ entrypoints: [join(ROOT, "src", "web", "index.html")], minify: MINIFY });
  if (!build.success) throw new AggregateError(build.logs, "bundling the web UI failed");
  let total = 0;
  for (const output of build.outputs) if (/\.(js|css)$/.test(output.path)) total += Bun.gzipSync(new Uint8Array(await output.arrayBuffer())).byteLength;
  return total;
}

const size = Bun.file(outfile).size;
console.log(`built ${outfile} (svc ${version}${values.target ? `, ${values.target}` : ""})`);
console.log(`size ${size} bytes (${(size / 1024 / 1024).toFixed(1)} MiB); checksum in ${outfile}.sha256`);
console.log(`web ui ${((await webUiGzippedBytes()) / 1000).toFixed(1)} KB gzipped (JS + CSS)`);
