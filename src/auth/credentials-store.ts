/**
 * The credentials file, `<data dir>/credentials.json`: the model providers set up through the API
 * (`POST /workspace/auth/provider`) and those a device-flow sign-in produced, each with its key or
 * tokens. Mode 0600 in a 0700-or-narrower data dir, written atomically (a 0600 temporary file in the
 * same directory, synced, renamed over the old one), never echoed by a route, never logged, never
 * put in an environment: the keys reach the built-in agent on its key descriptor
 * (`config/agent-keys.ts`).
 *
 * Bounds: the file is read to at most MAX_CREDENTIALS_BYTES (a larger one is refused, like a
 * damaged one: CredentialsFileError), and holds at most MAX_STORED_PROVIDERS entries (setting up one
 * more is refused with 409 `too_many_providers`). Reads and writes are synchronous, so two requests
 * of the daemon never interleave a read-modify-write.
 */
import { closeSync, constants, fstatSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DaemonError } from "../errors/daemon-error.ts";

export const CREDENTIALS_FILE = "credentials.json";
/** Largest credentials file read, in bytes. */
export const MAX_CREDENTIALS_BYTES = 256 * 1024;
/** Most providers stored. */
export const MAX_STORED_PROVIDERS = 32;

export type ProviderKind = "openai-compatible" | "anthropic" | "google";
export const PROVIDER_KINDS: readonly ProviderKind[] = ["openai-compatible", "anthropic", "google"];

export interface StoredProvider {
  readonly id: string;
  readonly kind: ProviderKind;
  readonly baseUrl: string;
  readonly models: readonly string[];
  /** The key, or a device flow's access token; "" for a keyless local server. */
  readonly apiKey: string;
  /** `api`: set up through the provider route; `device_flow`: a sign-in produced it. */
  readonly source: "api" | "device_flow";
  /** Epoch ms of the last change. */
  readonly updatedAt: number;
  /** Device flow: the refresh token, and when the access token expires (epoch ms), when given. */
  readonly refreshToken?: string;
  readonly expiresAt?: number;
}

/** The credentials file cannot be read or is damaged: 500 `credentials_unreadable` (no content quoted). */
export class CredentialsFileError extends DaemonError {
  constructor(reason: string) {
    super(500, "credentials_unreadable", `The credentials file cannot be used: ${reason}`);
  }
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

function isStoredProvider(v: unknown): v is StoredProvider {
  const p = v as Record<string, unknown> | null;
  return (
    p !== null &&
    typeof p === "object" &&
    typeof p.id === "string" &&
    PROVIDER_KINDS.includes(p.kind as ProviderKind) &&
    typeof p.baseUrl === "string" &&
    Array.isArray(p.models) &&
    p.models.every((m) => typeof m === "string") &&
    typeof p.apiKey === "string" &&
    (p.source === "api" || p.source === "device_flow") &&
    typeof p.updatedAt === "number" &&
    (p.refreshToken === undefined || typeof p.refreshToken === "string") &&
    (p.expiresAt === undefined || typeof p.expiresAt === "number")
  );
}

export class CredentialsStore {
  readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = join(dataDir, CREDENTIALS_FILE);
  }

  /** The stored providers, most recently changed first; none when there is no file. */
  read(): StoredProvider[] {
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch (err) {
      if (errno(err) === "ENOENT") return [];
      throw new CredentialsFileError(errno(err));
    }
    let text: string;
    try {
      if (!fstatSync(fd).isFile()) throw new CredentialsFileError("not a regular file");
      const buf = Buffer.allocUnsafe(MAX_CREDENTIALS_BYTES + 1);
      let filled = 0;
      for (let n = -1; n !== 0 && filled < buf.length; filled += n) n = readSync(fd, buf, filled, buf.length - filled, null);
      if (filled > MAX_CREDENTIALS_BYTES) throw new CredentialsFileError(`larger than ${MAX_CREDENTIALS_BYTES} bytes`);
      text = buf.toString("utf8", 0, filled);
    } catch (err) {
      throw err instanceof CredentialsFileError ? err : new CredentialsFileError(errno(err));
    } finally {
      closeSync(fd);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new CredentialsFileError("not JSON");
    }
    const providers = (doc as { providers?: unknown } | null)?.providers;
    if (!Array.isArray(providers) || !providers.every(isStoredProvider)) throw new CredentialsFileError("not a list of providers");
    return [...providers].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Adds or replaces (by id) `provider`. */
  put(provider: StoredProvider): void {
    const others = this.read().filter((p) => p.id !== provider.id);
    if (others.length >= MAX_STORED_PROVIDERS) throw new DaemonError(409, "too_many_providers", `At most ${MAX_STORED_PROVIDERS} providers can be stored`, { limit: MAX_STORED_PROVIDERS });
    this.write([provider, ...others]);
  }

  /** Removes provider `id`; whether it was there. */
  remove(id: string): boolean {
    const all = this.read();
    const kept = all.filter((p) => p.id !== id);
    if (kept.length === all.length) return false;
    this.write(kept);
    return true;
  }

  private write(providers: readonly StoredProvider[]): void {
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${crypto.getRandomValues(Buffer.alloc(6)).toString("hex")}.tmp`;
    const bytes = Buffer.from(`${JSON.stringify({ v: 1, providers }, null, 2)}\n`);
    if (bytes.length > MAX_CREDENTIALS_BYTES) throw new DaemonError(413, "credentials_too_large", `The credentials would take more than ${MAX_CREDENTIALS_BYTES} bytes`);
    try {
      const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.file);
    } catch (err) {
      rmSync(temp, { force: true });
      throw new CredentialsFileError(`cannot be written (${errno(err)})`);
    }
  }
}
