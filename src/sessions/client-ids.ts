/**
 * Client identity (protocol-notes §9): ids are minted by the daemon (`client_<uuid>`) on every
 * create/attach and echoed by the client in `X-Svc-Client-Id`. They attribute actions; they are not
 * security principals. A header naming an id not registered on the session is refused.
 *
 * An id lives as long as its client is active: registering it, presenting it (any call that carries
 * the header: prompt, vote, heartbeat, cancel, …) and the end of a turn it started refresh it, and
 * it expires after `idleTtlMs` without any of these. An id is pinned (never expires, never evicted)
 * while a prompt it submitted is queued or running, and while an event stream it opened is open.
 * An id its client has presented at least once (a call with the header, an event stream opened
 * with it) is an acting client: a consensus quorum counts acting clients only, so attaches that
 * never act (pollers, page reloads) cannot hold it out of reach.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const CLIENT_ID_HEADER = "x-svc-client-id";
/** What a client id looks like (the route schemas declare the header with it). */
export const CLIENT_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;
export const malformedClientId = () => new DaemonError(400, "invalid_client_id", "`X-Svc-Client-Id` must be a non-empty token of 128 characters or fewer");
/**
 * Registered clients per session. Registering one more first drops expired ids, then evicts the
 * least recently active id that is not pinned (presented or not: a UI that re-attaches on every
 * page load leaves a trail of ids it used once); only when every id is pinned is the attach
 * refused with 503 `client_limit_exceeded`. A pinned id is never evicted to make room.
 */
export const MAX_CLIENTS_PER_SESSION = 256;

export function mintClientId(): string {
  return `client_${crypto.randomUUID()}`;
}

/** The header value, validated for shape (null when absent). */
export function parseClientIdHeader(value: string | null): string | null {
  if (value === null) return null;
  if (!CLIENT_ID_SHAPE.test(value)) throw malformedClientId();
  return value;
}

export interface ClientRegistryOptions {
  readonly sessionId: string;
  /** How long an id lives without activity; 0 keeps it until the session ends. */
  readonly idleTtlMs: number;
  readonly now: () => number;
  /** Ids that stopped being registered (expired or evicted). */
  readonly onForget: (ids: readonly string[]) => void;
  /**
   * Ids that must not be evicted to make room although unpinned: a voter on a pending consensus
   * request (evicting it would shrink the quorum, so a flood of attaches could outvote it).
   */
  readonly isVoting: (id: string) => boolean;
}

interface ClientRecord {
  lastSeenAt: number;
  /** The client sent the id back at least once. */
  presented: boolean;
  /** Prompts of this client still queued or running, and event streams it holds open. */
  pins: number;
}

/** The clients registered on one session. */
export class ClientRegistry {
  private readonly clients = new Map<string, ClientRecord>();

  constructor(private readonly options: ClientRegistryOptions) {}

  /** Registered ids that have not expired. */
  get size(): number {
    let n = 0;
    for (const record of this.clients.values()) if (this.alive(record)) n++;
    return n;
  }

  /** Whether `id` is registered and has not expired. */
  has(id: string): boolean {
    const record = this.clients.get(id);
    return record !== undefined && this.alive(record);
  }

  /** The ids that can act on the session now (registered, not expired). */
  ids(): string[] {
    return [...this.clients].filter(([, record]) => this.alive(record)).map(([id]) => id);
  }

  /** Whether `id` is registered, not expired, and its client has presented it (see the header). */
  isActing(id: string): boolean {
    const record = this.clients.get(id);
    return record !== undefined && record.presented && this.alive(record);
  }

  /** Reuses `requested` when it is registered here, else mints a new id (see MAX_CLIENTS_PER_SESSION). */
  attach(requested: string | null): string {
    if (requested !== null && this.has(requested)) {
      this.present(requested);
      return requested;
    }
    if (this.clients.size >= MAX_CLIENTS_PER_SESSION) this.makeRoom();
    const id = mintClientId();
    this.clients.set(id, { lastSeenAt: this.options.now(), presented: false, pins: 0 });
    return id;
  }

  /**
   * Validates a header value against this session: null (anonymous) or a registered id, which
   * this use refreshes. An expired id is forgotten and refused like an unknown one.
   */
  use(clientId: string | null): string | null {
    if (clientId === null) return null;
    const record = this.clients.get(clientId);
    if (!record || !this.alive(record)) {
      if (record) this.forget([clientId]);
      throw new DaemonError(400, "invalid_client_id", `Client id "${clientId}" is not registered for session ${this.options.sessionId}`, {
        sessionId: this.options.sessionId,
        clientId,
      });
    }
    this.present(clientId);
    return clientId;
  }

  /** Marks activity of `id` (a turn it started ended). */
  touch(id: string): void {
    const record = this.clients.get(id);
    if (record) record.lastSeenAt = this.options.now();
  }

  pin(id: string): void {
    const record = this.clients.get(id);
    if (record) record.pins++;
  }

  unpin(id: string): void {
    const record = this.clients.get(id);
    if (record && record.pins > 0) record.pins--;
  }

  /**
   * Keeps a registered id alive while its client watches the session (an open event stream); the
   * returned release ends the hold and counts as activity. Anything else (absent, malformed,
   * unknown, expired) holds nothing: the stream route does not validate the header.
   */
  hold(header: string | null): () => void {
    if (header === null || !CLIENT_ID_SHAPE.test(header) || !this.has(header)) return () => {};
    this.present(header);
    this.pin(header);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.unpin(header);
      this.touch(header);
    };
  }

  /**
   * Its client says it is gone (`POST /session/:id/detach`): the id is forgotten now, unless a
   * prompt it submitted or an event stream it opened still holds it, or it votes on a pending
   * consensus request; such an id expires as usual once released. Unknown ids are ignored.
   */
  release(id: string): void {
    const record = this.clients.get(id);
    if (record && record.pins === 0 && !this.options.isVoting(id)) this.forget([id]);
  }

  /** Forgets every expired id; returns them. */
  sweep(): string[] {
    const expired = [...this.clients].filter(([, record]) => !this.alive(record)).map(([id]) => id);
    if (expired.length > 0) this.forget(expired);
    return expired;
  }

  private alive(record: ClientRecord): boolean {
    const ttl = this.options.idleTtlMs;
    return ttl === 0 || record.pins > 0 || this.options.now() - record.lastSeenAt < ttl;
  }

  private present(id: string): void {
    const record = this.clients.get(id)!;
    record.lastSeenAt = this.options.now();
    record.presented = true;
  }

  private makeRoom(): void {
    if (this.sweep().length > 0) return;
    let oldest: [string, ClientRecord] | null = null;
    for (const entry of this.clients)
      if (entry[1].pins === 0 && !this.options.isVoting(entry[0]) && (oldest === null || entry[1].lastSeenAt < oldest[1].lastSeenAt)) oldest = entry;
    if (oldest === null)
      throw new DaemonError(503, "client_limit_exceeded", `Session ${this.options.sessionId} already has ${MAX_CLIENTS_PER_SESSION} clients with a pending prompt or an open event stream`, {
        sessionId: this.options.sessionId,
        limit: MAX_CLIENTS_PER_SESSION,
      }, 5);
    this.forget([oldest[0]]);
  }

  private forget(ids: readonly string[]): void {
    for (const id of ids) this.clients.delete(id);
    this.options.onForget(ids);
  }
}
