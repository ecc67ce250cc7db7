/**
 * Which daemon the test helpers start, chosen by the environment of the test run:
 *
 *   bun test …                                                  the sources, in process (the default)
 *   SVC_TEST_TARGET=binary SVC_TEST_BINARY=dist/svc bun test …  the compiled binary, as a child
 *
 * `npm run test:binary` runs the suites listed in `test/binary-suites.ts` the second way. A relative
 * `SVC_TEST_BINARY` is taken from the current directory; it defaults to `dist/svc` there. A bad
 * setting fails every test that starts a daemon, with a message saying what to fix.
 */
import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";

export type TestTarget = { readonly kind: "source" } | { readonly kind: "binary"; readonly path: string };

export function testTarget(): TestTarget {
  const kind = process.env.SVC_TEST_TARGET ?? "source";
  if (kind === "source" || kind === "") return { kind: "source" };
  if (kind !== "binary") throw new Error(`SVC_TEST_TARGET=${JSON.stringify(kind)}: expected "source" or "binary"`);
  const path = resolve(process.env.SVC_TEST_BINARY || "dist/svc");
  try {
    if (!statSync(path).isFile()) throw new Error("not a file");
    accessSync(path, constants.X_OK);
  } catch (err) {
    throw new Error(`SVC_TEST_BINARY=${path}: not an executable file (${(err as Error).message}); build it with \`npm run build\``);
  }
  return { kind: "binary", path };
}
