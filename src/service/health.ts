/**
 * The installed service's daemon, found through its discovery record for the service's workspace and
 * data dir: only a record naming the service's token file counts (a daemon started by hand for the
 * same workspace is not the service's, and is never sent the service's token), and its
 * `GET /health` (with the token from that file, for a daemon started with `--require-auth`).
 */
import { liveDaemons, type DiscoveryRecord } from "../runtime/discovery-file.ts";
import { readTokenFile } from "../config/token-file.ts";

const HEALTH_TIMEOUT_MS = 3000;

export type Health =
  | { readonly kind: "none" }
  | { readonly kind: "healthy"; readonly record: DiscoveryRecord; readonly status: string }
  | { readonly kind: "unhealthy"; readonly record: DiscoveryRecord; readonly problem: string };

export async function serviceHealth(dataDir: string, workspace: string, tokenFile: string, warn: (message: string) => void): Promise<Health> {
  const record = liveDaemons(dataDir, workspace, warn).find((r) => r.tokenFile === tokenFile);
  if (record === undefined) return { kind: "none" };
  let token: string | null = null;
  try {
    token = record.auth === "bearer" ? readTokenFile(tokenFile) : null;
  } catch {
    token = null;
  }
  try {
    const response = await fetch(`${record.url}/health`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => null)) as { status?: unknown } | null;
    if (!response.ok) return { kind: "unhealthy", record, problem: `GET /health answered ${response.status}` };
    return { kind: "healthy", record, status: typeof body?.status === "string" ? body.status : "ok" };
  } catch (err) {
    return { kind: "unhealthy", record, problem: `GET /health failed: ${(err as Error).message}` };
  }
}
