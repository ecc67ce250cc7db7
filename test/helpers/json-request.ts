/**
 * JSON over `fetch` for tests: status, headers and the parsed body, whatever the status. Responses
 * of a daemon under contract are checked against its declared schemas (`contract.ts`).
 */
import { contractFetch } from "./contract.ts";

export interface JsonReply<T = any> {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed body; null when empty, the raw text when it is not JSON. */
  readonly body: T;
}

/** Reads a response to the end into a `JsonReply`. */
export async function readJsonReply<T = any>(response: Response): Promise<JsonReply<T>> {
  const text = await response.text();
  let body: unknown = null;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

/** `method base+path`; a `body` is sent as JSON (a string verbatim) with `Content-Type: application/json`. */
export async function jsonRequest<T = any>(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonReply<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  return await readJsonReply<T>(await contractFetch(base + path, init));
}
