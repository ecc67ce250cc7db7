/**
 * Bounded downloads from the release location: at most `maxBytes` of body (a longer one is refused
 * while it streams, before it is all in memory) within `timeoutMs`; any status but 2xx is a failure.
 * Redirects are followed (release hosts redirect to their storage).
 */
import { UpdateError } from "./update-error.ts";

export async function download(url: string, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  let response: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetch(url, { signal, redirect: "follow" });
  } catch (err) {
    throw new UpdateError("release_unreachable", `could not reach ${url}: ${(err as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new UpdateError("release_unreachable", `${url} answered ${response.status}`);
  }
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new UpdateError("release_too_large", `${url} is ${declared} bytes, above the bound of ${maxBytes}`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const next = await reader?.read();
      if (next === undefined || next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) throw new UpdateError("release_too_large", `${url} is longer than the bound of ${maxBytes} bytes`);
      chunks.push(next.value);
    }
  } catch (err) {
    await reader?.cancel().catch(() => {});
    if (err instanceof UpdateError) throw err;
    throw new UpdateError("release_unreachable", `the download of ${url} failed: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks);
}
