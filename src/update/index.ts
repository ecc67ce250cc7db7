/**
 * Updates (`GET /daemon/update`, `POST /daemon/update/prepare`, `POST /daemon/update/restart`,
 * `svc update`): the one seam of `src/update/`, loaded on first use (the idle daemon never loads it).
 *
 * - check: the release location's signed SHA256SUMS names the newest version (`release-check.ts`);
 *   a location that cannot be reached or verified is reported as such, never as "up to date";
 * - prepare: download, verify and stage under the data dir (`stage.ts`); an older release than the
 *   running one only when asked (`allowDowngrade`, `version-order.ts`);
 * - restart: swap the binary and hand the port to the new daemon, or roll back (`restart.ts`).
 * One prepare or restart runs at a time.
 */
import { RELEASE_PUBLIC_KEY } from "../release/public-key.ts";
import { fetchSignedRelease } from "./release-check.ts";
import { releaseBase } from "./release-location.ts";
import { readLastRestart, restartInto, type LastRestart, type Restarted, type RestartHost } from "./restart.ts";
import { prepare, readStaged, type StagedUpdate } from "./stage.ts";
import { UpdateError } from "./update-error.ts";
import { compareVersions } from "./version-order.ts";

export type { LastRestart, RestartHost, Restarted } from "./restart.ts";
export type { StagedUpdate } from "./stage.ts";
export { UpdateError } from "./update-error.ts";
export { updateCommand } from "./update-command.ts";

export interface UpdateStatus {
  readonly currentVersion: string;
  readonly releaseUrl: string;
  /** The newest release's version; null when the check failed (`checkError` says why). */
  readonly latestVersion: string | null;
  /** Whether the newest release differs from the running build; null when unknown. */
  readonly updateAvailable: boolean | null;
  readonly checkError: { readonly code: string; readonly error: string } | null;
  readonly checkedAt: string;
  readonly staged: { readonly version: string; readonly sha256: string; readonly preparedAt: string } | null;
  readonly lastRestart: LastRestart | null;
}

export interface UpdaterDeps {
  readonly dataDir: string;
  /** `--release-url`/SVC_RELEASE_URL (null: the project's release location). */
  readonly releaseUrl: string | null;
  readonly currentVersion: string;
  /** What the daemon lends a restart; null where it cannot restart itself (not a compiled binary). */
  readonly host: RestartHost | null;
  /** The key release signatures are checked with: the one built into this binary. */
  readonly publicKey?: string;
}

export interface Updater {
  status(): Promise<UpdateStatus>;
  prepare(options?: { readonly allowDowngrade?: boolean }): Promise<UpdateStatus>;
  restart(): Promise<Restarted>;
}

const stagedView = (staged: StagedUpdate | null) => (staged === null ? null : { version: staged.version, sha256: staged.sha256, preparedAt: staged.preparedAt });

export function createUpdater(deps: UpdaterDeps): Updater {
  const base = releaseBase(deps.releaseUrl);
  const publicKey = deps.publicKey ?? RELEASE_PUBLIC_KEY;
  let busy = false;
  const exclusive = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    if (busy) throw new UpdateError("update_in_progress", `another update step is running; ${what} again once it is done`);
    busy = true;
    try {
      return await run();
    } finally {
      busy = false;
    }
  };
  const status = (latest: { version: string } | { error: UpdateError | Error }): UpdateStatus => {
    const known = "version" in latest;
    return {
      currentVersion: deps.currentVersion,
      releaseUrl: base,
      latestVersion: known ? latest.version : null,
      updateAvailable: known ? compareVersions(latest.version, deps.currentVersion) > 0 : null,
      checkError: known ? null : { code: latest.error instanceof UpdateError ? latest.error.code : "release_unreachable", error: latest.error.message },
      checkedAt: new Date().toISOString(),
      staged: stagedView(readStaged(deps.dataDir)),
      lastRestart: readLastRestart(deps.dataDir),
    };
  };
  return {
    async status() {
      try {
        return status(await fetchSignedRelease(base, publicKey));
      } catch (error) {
        return status({ error: error as Error });
      }
    },
    prepare: (options) =>
      exclusive("prepare", async () => {
        // Answered from what prepare saw: a second look at the release location could fail after the stage.
        const prepared = await prepare({ dataDir: deps.dataDir, base, publicKey, currentVersion: deps.currentVersion, allowDowngrade: options?.allowDowngrade === true });
        return status({ version: prepared.version });
      }),
    restart: () =>
      exclusive("restart", async () => {
        const staged = readStaged(deps.dataDir);
        if (staged === null) throw new UpdateError("update_not_staged", "no update is staged: POST /daemon/update/prepare first");
        if (deps.host === null) throw new UpdateError("update_unsupported", "this daemon is not running from a compiled svc binary; it cannot restart into an update");
        return restartInto(staged, deps.host, deps.dataDir, deps.currentVersion);
      }),
  };
}
