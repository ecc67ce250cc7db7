/**
 * The modules this process has loaded, from Bun's module registry: source paths under `bun
 * src/main.ts`, embedded chunks (`/$bunfs/root/chunk-….js`) in the compiled binary, whose contents
 * `build.ts` lists in `<binary>.modules.json`. The entry module itself is not listed.
 */
export const loadedModules = (): string[] => Object.keys(require.cache).sort();
