/**
 * The web UI's files: its page shell and its content-hashed assets, resolved on first request.
 *
 * The UI enters the daemon through one Bun HTML import (`web.ts`). In the compiled binary,
 * `bun build --compile` bundles it ahead of time and embeds the outputs: the import's `files`
 * lists them (paths under `/$bunfs/`), read only when asked for. Under `bun src/main.ts` the import
 * is only the source path (`index`), so the first request bundles it in memory with `Bun.build`.
 * One import serves both modes with no generated manifest and no build step before the tests; and
 * the daemon reads or builds nothing of the UI until a browser asks (idle memory unchanged).
 *
 * Both modes name assets `<name>-<hash>.<ext>`; the shell is rewritten to reference them as
 * `/assets/<file>` (the compiled bundle references `/<file>`, the in-memory one `./<file>`), so the
 * URL space of the UI is `/` plus one prefix that no API route uses. The compiled bundle's scripts
 * import their lazy chunks (the highlighter) as `/<file>` too: those references are rewritten the
 * same way, once, when the bundle is first resolved (the in-memory build's `./<file>` resolves
 * under `/assets/` by itself).
 */
import type { HTMLBundle } from "bun";

/** Where assets are served; every asset reference in the shell is rewritten to it. */
export const ASSET_PREFIX = "/assets/";

export interface WebAsset {
  /** Exact MIME type with charset, as Bun derives it from the file's extension. */
  readonly type: string;
  /** The bytes: a lazily read embedded file (binary) or the in-memory build output (sources). */
  readonly body: Blob;
}

export interface WebBundle {
  /** The page shell's HTML, its asset references pointing under ASSET_PREFIX. */
  readonly shell: string;
  /** Asset file name (`main-1a2b3c4d.js`) → asset. Only these names are served. */
  readonly assets: ReadonlyMap<string, WebAsset>;
}

const fileName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** Points every `src`/`href` whose file name is an asset at ASSET_PREFIX; other references stay. */
function rewriteShell(html: string, assets: ReadonlyMap<string, WebAsset>): string {
  return html.replace(/\b(src|href)="([^"]*)"/g, (whole, attribute: string, value: string) =>
    assets.has(fileName(value)) ? `${attribute}="${ASSET_PREFIX}${fileName(value)}"` : whole,
  );
}

/** A script's quoted root-relative references to assets (`"/chunk-1a2b.js"`), pointed at ASSET_PREFIX. */
export function rewriteScript(script: string, assets: ReadonlyMap<string, WebAsset>): string {
  return script.replace(/(["'`])\/([\w.-]+)\1/g, (whole, quote: string, name: string) => (assets.has(name) ? `${quote}${ASSET_PREFIX}${name}${quote}` : whole));
}

/**
 * The binary: the outputs `bun build --compile` embedded, read from `/$bunfs/` on demand; its
 * scripts are read once here, their chunk imports rewritten (a few hundred KB held from then on).
 */
async function embeddedBundle(files: NonNullable<HTMLBundle["files"]>, index: string): Promise<WebBundle> {
  const assets = new Map<string, WebAsset>();
  for (const file of files) if (file.loader !== "html") assets.set(fileName(file.path), { type: file.headers["content-type"], body: Bun.file(file.path) });
  for (const [name, asset] of assets)
    if (name.endsWith(".js")) assets.set(name, { type: asset.type, body: new Blob([rewriteScript(await asset.body.text(), assets)], { type: asset.type }) });
  return { shell: rewriteShell(await Bun.file(index).text(), assets), assets };
}

/** The sources: bundle the UI in memory, as the compile step does (lazy imports split off), with hashed names. */
async function inMemoryBundle(index: string): Promise<WebBundle> {
  const build = await Bun.build({ entrypoints: [index], minify: true, splitting: true, naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" } });
  if (!build.success) throw new AggregateError(build.logs, "bundling the web UI failed");
  const html = build.outputs.find((output) => output.path.endsWith(".html"));
  if (html === undefined) throw new Error("bundling the web UI produced no HTML");
  const assets = new Map<string, WebAsset>();
  for (const output of build.outputs) if (output !== html) assets.set(fileName(output.path), { type: output.type, body: output });
  return { shell: rewriteShell(await html.text(), assets), assets };
}

export function resolveWebBundle(page: HTMLBundle): Promise<WebBundle> {
  return page.files === undefined ? inMemoryBundle(page.index) : embeddedBundle(page.files, page.index);
}
