/**
 * Client identity (protocol-notes §9): ids are minted by the daemon (`client_<uuid>`) on every
 * create/attach and echoed by the client in `X-Svc-Client-Id`. They attribute actions; they are not
 * security principals. A header naming an id not registered on the session is refused.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const CLIENT_ID_HEADER = "x-svc-client-id";
const CLIENT_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;
/** Registered clients per session; past it the least recently seen one is forgotten. */
export const MAX_CLIENTS_PER_SESSION = 256;

export function mintClientId(): string {
  return `client_${crypto.randomUUID()}`;
}

/** The header value, validated for shape (null when absent). */
export function parseClientIdHeader(value: string | null): string | null {
  if (value === null) return null;
  if (!CLIENT_ID_SHAPE.test(value))
    throw new DaemonError(400, "invalid_client_id", "`X-Svc-Client-Id` must be a non-empty token of 128 characters or fewer");
  return value;
}

export interface ClientRecord {
  readonly registeredAt: number;
  lastSeenAt: number;
}

/** The clients registered on one session. */
export class ClientRegistry {
  private readonly clients = new Map<string, ClientRecord>();

  get size(): number {
    return this.clients.size;
  }

  has(id: string): boolean {
    return this.clients.has(id);
  }

  ids(): string[] {
    return [...this.clients.keys()];
  }

  /** Reuses `requested` when it is registered here, else mints a new id. */
  attach(requested: string | null, now: number): string {
    if (requested !== null && this.clients.has(requested)) {
      this.touch(requested, now);
      return requested;
    }
    const id = mintClientId();
    if (this.clients.size >= MAX_CLIENTS_PER_SESSION) this.clients.delete(this.clients.keys().next().value!);
    this.clients.set(id, { registeredAt: now, lastSeenAt: now });
    return id;
  }

  touch(id: string, now: number): void {
    const record = this.clients.get(id);
    if (!record) return;
    record.lastSeenAt = now;
    this.clients.delete(id); // keep Map order = recency for the eviction above
    this.clients.set(id, record);
  }

  /** Validates a header value against this session: null (anonymous) or a registered id. */
  require(sessionId: string, clientId: string | null): string | null {
    if (clientId !== null && !this.clients.has(clientId))
      throw new DaemonError(400, "invalid_client_id", `Client id "${clientId}" is not registered for session ${sessionId}`, { sessionId, clientId });
    return clientId;
  }
}
