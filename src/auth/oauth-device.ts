/**
 * An OAuth 2.0 device authorization client (RFC 8628) over bounded requests: the device code
 * request (§3.1–3.2), one token poll (§3.4–3.5) and a refresh (RFC 6749 §6). Each request is a form
 * POST to an endpoint of the provider table (`device-providers.ts`) with a timeout
 * (REQUEST_TIMEOUT_MS), no redirects followed, and an answer read to at most MAX_RESPONSE_BYTES
 * (a larger one fails the request). Nothing here logs: the user code, verification address and
 * tokens stay in the values returned.
 */
import type { DeviceFlowProvider } from "./device-providers.ts";
import { endpointUrl } from "./device-providers.ts";

/** Every request to an authorization server ends within this. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** Largest answer read from an authorization server, in bytes. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** Bounds applied to what a server says: the flow's lifetime and the poll interval. */
export const MIN_EXPIRES_IN_S = 1;
export const MAX_EXPIRES_IN_S = 3600;
export const DEFAULT_INTERVAL_S = 5;
export const MAX_INTERVAL_S = 60;
/** RFC 8628 §3.5: `slow_down` adds 5 seconds to the interval. */
export const SLOW_DOWN_STEP_S = 5;
const MAX_CODE_CHARS = 512;
const MAX_TOKEN_CHARS = 16 * 1024;

export class AuthServerError extends Error {}

export interface DeviceAuthorization {
  readonly deviceCode: string;
  readonly userCode: string;
  readonly verificationUri: string;
  readonly verificationUriComplete: string | null;
  readonly expiresInS: number;
  readonly intervalS: number;
  /** The PKCE verifier sent with each poll, when the provider uses PKCE. */
  readonly codeVerifier: string | null;
}

export interface Tokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly expiresInS: number | null;
}

export type PollResult =
  | { readonly kind: "pending" }
  | { readonly kind: "slow_down" }
  | { readonly kind: "denied" }
  | { readonly kind: "expired" }
  | { readonly kind: "tokens"; readonly tokens: Tokens }
  /** No usable answer this time (no connection, a timeout, HTTP 5xx or 429): worth asking again later. */
  | { readonly kind: "unreachable"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

/** Reads `body` to its end, failing past `max` bytes. */
async function boundedText(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new AuthServerError(`the authorization server's answer is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** One form POST; its status and JSON object answer (an answer that is not one counts as `{}`). */
async function postForm(url: string, form: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; body: Record<string, unknown> }> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    throw new AuthServerError(timeout.aborted ? `no answer within ${REQUEST_TIMEOUT_MS} ms` : `request failed (${(err as Error).name})`);
  }
  const text = await boundedText(response, MAX_RESPONSE_BYTES);
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: judged by status below
  }
  return { status: response.status, body: body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {} };
}

const code = (v: unknown): v is string => typeof v === "string" && v !== "" && v.length <= MAX_CODE_CHARS;
const seconds = (v: unknown, fallback: number, min: number, max: number) => (typeof v === "number" && Number.isFinite(v) ? Math.min(max, Math.max(min, Math.round(v))) : fallback);

/** RFC 8628 §3.1–3.2: asks for a device code and the user code to show. */
export async function requestDeviceCode(provider: DeviceFlowProvider, signal?: AbortSignal): Promise<DeviceAuthorization> {
  const verifier = provider.pkce ? crypto.getRandomValues(Buffer.alloc(32)).toString("base64url") : null;
  const form: Record<string, string> = { client_id: provider.clientId };
  if (provider.scope !== null) form.scope = provider.scope;
  if (verifier !== null) Object.assign(form, { code_challenge: new Bun.CryptoHasher("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256" });
  const { status, body } = await postForm(provider.deviceAuthorizationEndpoint, form, signal);
  if (status !== 200) throw new AuthServerError(`the device code request was refused (HTTP ${status}${typeof body.error === "string" ? `, ${body.error.slice(0, 64)}` : ""})`);
  const uri = endpointUrl(body.verification_uri ?? body.verification_url);
  if (!code(body.device_code) || !code(body.user_code) || uri === null) throw new AuthServerError("the device code answer lacks device_code, user_code or an http(s) verification_uri");
  return {
    deviceCode: body.device_code,
    userCode: body.user_code,
    verificationUri: uri,
    verificationUriComplete: endpointUrl(body.verification_uri_complete),
    expiresInS: seconds(body.expires_in, MAX_EXPIRES_IN_S, MIN_EXPIRES_IN_S, MAX_EXPIRES_IN_S),
    intervalS: seconds(body.interval, DEFAULT_INTERVAL_S, 1, MAX_INTERVAL_S),
    codeVerifier: verifier,
  };
}

function tokensOf(body: Record<string, unknown>): Tokens | null {
  if (typeof body.access_token !== "string" || body.access_token === "" || body.access_token.length > MAX_TOKEN_CHARS) return null;
  return {
    accessToken: body.access_token as string,
    refreshToken: typeof body.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : null,
    expiresInS: typeof body.expires_in === "number" && body.expires_in > 0 ? Math.round(body.expires_in) : null,
  };
}

/** RFC 8628 §3.4–3.5: one poll of the token endpoint. */
export async function pollToken(provider: DeviceFlowProvider, auth: Pick<DeviceAuthorization, "deviceCode" | "codeVerifier">, signal?: AbortSignal): Promise<PollResult> {
  const form: Record<string, string> = { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: auth.deviceCode, client_id: provider.clientId };
  if (auth.codeVerifier !== null) form.code_verifier = auth.codeVerifier;
  let answer: Awaited<ReturnType<typeof postForm>>;
  try {
    answer = await postForm(provider.tokenEndpoint, form, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    return { kind: "unreachable", message: (err as Error).message };
  }
  const { status, body } = answer;
  if (status >= 500 || status === 429) return { kind: "unreachable", message: `the token endpoint answered HTTP ${status}` };
  if (status === 200) {
    const tokens = tokensOf(body);
    return tokens ? { kind: "tokens", tokens } : { kind: "error", message: "the token answer lacks access_token" };
  }
  switch (body.error) {
    case "authorization_pending":
      return { kind: "pending" };
    case "slow_down":
      return { kind: "slow_down" };
    case "access_denied":
      return { kind: "denied" };
    case "expired_token":
      return { kind: "expired" };
    default:
      return { kind: "error", message: `the token request was refused (HTTP ${status}${typeof body.error === "string" ? `, ${body.error.slice(0, 64)}` : ""})` };
  }
}

/** RFC 6749 §6: new tokens for a refresh token (a server that sends no new refresh token keeps the old one valid). */
export async function refreshTokens(provider: DeviceFlowProvider, refreshToken: string): Promise<Tokens> {
  const { status, body } = await postForm(provider.tokenEndpoint, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: provider.clientId });
  const tokens = status === 200 ? tokensOf(body) : null;
  if (tokens === null) throw new AuthServerError(`the refresh was refused (HTTP ${status})`);
  return tokens.refreshToken === null ? { ...tokens, refreshToken } : tokens;
}
