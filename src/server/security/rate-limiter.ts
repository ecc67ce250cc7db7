/**
 * Token-bucket rate limiting per client address and request tier (`prompt`, `mutation`, `read`).
 * Each bucket holds `limit` tokens and refills continuously over `windowMs`. Buckets are keyed by the
 * socket's remote address (`rateClientKey`), never by a client-chosen header. At most MAX_BUCKETS are
 * kept; past that the least recently used bucket is dropped (its client starts again with a full bucket).
 */
import type { RateLimitConfig } from "../../config/config.ts";

export type RateTier = "prompt" | "mutation" | "read";

const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateVerdict {
  readonly allowed: boolean;
  readonly tier: RateTier;
  readonly limit: number;
  readonly remaining: number;
  /** Milliseconds until one token is available again (0 when allowed). */
  readonly retryAfterMs: number;
  /** Epoch seconds at which the bucket is full again. */
  readonly resetAt: number;
}

/** Which tier a request counts against; null = exempt (OPTIONS, /health, heartbeats, event streams). */
export function rateTierOf(method: string, path: string): RateTier | null {
  if (method === "OPTIONS") return null;
  if (method === "GET" || method === "HEAD") {
    if (path === "/health" || /^\/session\/[^/]+\/events$/.test(path)) return null;
    return "read";
  }
  if (method === "POST") {
    if (/^\/session\/[^/]+\/prompt$/.test(path)) return "prompt";
    if (/^\/session\/[^/]+\/heartbeat$/.test(path)) return null;
    if (path === "/sessions/catalog") return "read";
  }
  return "mutation";
}

/** The one bucket every loopback client shares. */
const LOOPBACK_KEY = "loopback";
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The bucket key for a socket's remote address. Every loopback address (all of 127.0.0.0/8, `::1`,
 * and their IPv4-mapped spellings) is one client, as in the reference daemon's shared loopback
 * bucket (notes §11 "Rate limit key"): a local process picks its source address freely, so keying
 * them apart would hand it a fresh budget per address. Other addresses key themselves, an
 * IPv4-mapped IPv6 address as its IPv4 form.
 */
export function rateClientKey(address: string | undefined): string {
  if (address === undefined) return "unknown"; // the socket is already gone: one shared bucket
  const ipv4 = IPV4_MAPPED.exec(address)?.[1] ?? address;
  if (ipv4.startsWith("127.") || ipv4 === "::1" || ipv4 === "0:0:0:0:0:0:0:1") return LOOPBACK_KEY;
  return ipv4.toLowerCase();
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly rejected: Record<RateTier, number> = { prompt: 0, mutation: 0, read: 0 };

  constructor(
    private readonly config: RateLimitConfig,
    private readonly now: () => number = Date.now,
  ) {}

  check(clientKey: string, tier: RateTier): RateVerdict {
    const limit = this.config[tier];
    const perMs = limit / this.config.windowMs;
    const key = `${tier}\u0000${clientKey}`;
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key); // re-insert below to keep Map order = recency
      bucket.tokens = Math.min(limit, bucket.tokens + (now - bucket.updatedAt) * perMs);
      bucket.updatedAt = now;
    } else {
      bucket = { tokens: limit, updatedAt: now };
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(key, bucket);

    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    else this.rejected[tier]++;
    const resetAt = Math.ceil((now + (limit - bucket.tokens) / perMs) / 1000);
    const retryAfterMs = allowed ? 0 : Math.ceil((1 - bucket.tokens) / perMs);
    return { allowed, tier, limit, remaining: Math.floor(bucket.tokens), retryAfterMs, resetAt };
  }

  rejectedSinceStart(): Readonly<Record<RateTier, number>> {
    return { ...this.rejected };
  }
}
