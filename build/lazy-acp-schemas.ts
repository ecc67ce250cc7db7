/**
 * The ACP SDK validates every message with zod schemas generated into `zod.gen.js` modules, one
 * `export const zX = <zod expression>;` per protocol type (252 in the unstable protocol). Building
 * all of them when the module is first imported costs ~40–80 ms of CPU on the daemon's path to its
 * first session (the ACP channel imports the SDK when the first agent starts) and on the built-in
 * agent's first prompt. The build wraps each one in `z.lazy(() => …)`: a schema is built on its first
 * parse, the same schema as before (`test/unit/build/lazy-acp-schemas.test.ts` parses a corpus
 * through both and compares the results).
 *
 * The build fails, rather than ship a half-rewritten module, if the SDK's generated layout changes
 * so that an export is not matched.
 */

/** Top-level `export const zX = …;`: the expression runs to the `;` that ends a line followed by the next top-level item. */
const EXPORTED_SCHEMA = /^export const (z\w+) = ([\s\S]*?);\n(?=\/\*\*|\/\/|export |$(?![\s\S]))/gm;

/** `source` (a generated `zod.gen.js`) with every exported schema built lazily; throws if one is missed. */
export function lazySchemas(source: string, file: string): string {
  const exports = source.match(/^export /gm)?.length ?? 0;
  let rewritten = 0;
  const code = source.replace(EXPORTED_SCHEMA, (_match, name: string, expression: string) => {
    rewritten++;
    return `export const ${name} = z.lazy(() => ${expression});\n`;
  });
  if (rewritten === 0 || rewritten !== exports) throw new Error(`${file}: ${rewritten} of ${exports} exports rewritten as lazy zod schemas; the generated layout changed`);
  if (!/^import \* as z from "zod\/v4";$/m.test(source)) throw new Error(`${file}: no \`import * as z from "zod/v4"\`; the generated layout changed`);
  return code;
}

/** The Bun build plugin applying `lazySchemas` to the ACP SDK's generated schema modules. */
export const lazyAcpSchemas: Bun.BunPlugin = {
  name: "svc-lazy-acp-schemas",
  setup(build) {
    build.onLoad({ filter: /@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*zod\.gen\.js$/ }, async (args) => ({
      contents: lazySchemas(await Bun.file(args.path).text(), args.path),
      loader: "js",
    }));
  },
};
