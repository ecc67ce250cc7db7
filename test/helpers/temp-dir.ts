/** A temp directory removed on dispose: `await using dir = tempDir()`. */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir extends AsyncDisposable {
  readonly path: string;
}

export function tempDir(prefix = "svc-"): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, [Symbol.asyncDispose]: async () => rmSync(path, { recursive: true, force: true }) };
}
