/**
 * The workspaces `/capabilities` lists before the core is built: the primary and the persistent
 * registrations the core will serve, read from their mirror (`store/registration-mirror.ts`)
 * instead of `svc.db`, so an idle daemon loads no SQLite and answers a launcher's poll at once.
 *
 * It answers only when it is sure to say what the core would: with no database at all (nothing was
 * ever registered), or with a mirror of this very database (`databaseIdentity`) whose every row
 * passes the checks the core's build applies (`WorkspaceRegistrations.load`: the path still
 * canonical and registrable, nested in no other, within --max-workspaces). Otherwise (a database
 * without a mirror or another than the mirror's, a mirror it cannot use, a row the core would skip
 * and log) it answers null and the front door builds the core, which answers, and logs, for itself.
 * Computed at each request: the folders may change (one turned into a link) while the daemon idles.
 */
import type { Config } from "../config/config.ts";
import { databaseIdentity, readRegistrationMirror } from "../store/registration-mirror.ts";
import { WorkspaceTrust } from "../trust/index.ts";
import { registrablePath, within } from "../workspace-registry/registration-path.ts";
import { workspaceId } from "../workspace/workspace-id.ts";
import type { CapabilitiesWorkspace } from "./capabilities-answer.ts";

interface Registered {
  readonly id: string;
  readonly path: string;
  readonly displayName: string | null;
  readonly trust: WorkspaceTrust;
}

/** The registered workspaces the core would serve, or null when only the core can say. */
function registeredAtBoot(config: Config): Registered[] | null {
  let db: string | null;
  try {
    db = databaseIdentity(config.dataDir);
  } catch {
    return null;
  }
  const mirror = readRegistrationMirror(config.dataDir, config.workspace);
  if (mirror.kind === "absent") return db === null ? [] : null;
  if (mirror.kind === "unusable" || mirror.db !== db) return null;
  const served = [config.workspace];
  const registered: Registered[] = [];
  for (const row of mirror.rows) {
    if (served.length >= config.limits.maxWorkspaces) return null;
    try {
      if (registrablePath(row.path, config.dataDir) !== row.path) return null;
    } catch {
      return null;
    }
    if (served.some((path) => path === row.path || within(path, row.path) || within(row.path, path))) return null;
    served.push(row.path);
    // Trust is read live, as the core's own would be; a damaged trust store is the core's to report.
    const trust = new WorkspaceTrust({ dataDir: config.dataDir, workspace: row.path, folderTrust: config.settings.folderTrust, trustWorkspace: false, warn: () => {} });
    registered.push({ id: workspaceId(row.path), path: row.path, displayName: row.displayName, trust });
  }
  return registered;
}

/**
 * The boot list for `/capabilities`: `workspaces()` is null when the front door must build the core
 * to answer. `primaryTrusted` is the daemon's live trust in its primary workspace.
 */
export function bootWorkspaces(config: Config, primaryTrusted: () => boolean): { workspaces(): CapabilitiesWorkspace[] | null } {
  return {
    workspaces() {
      const registered = registeredAtBoot(config);
      if (registered === null) return null;
      return [
        { id: workspaceId(config.workspace), cwd: config.workspace, primary: true, trusted: primaryTrusted(), removable: false },
        ...registered.map((r) => ({ id: r.id, cwd: r.path, ...(r.displayName === null ? {} : { displayName: r.displayName }), primary: false, trusted: r.trust.trusted, removable: true })),
      ];
    },
  };
}
