/**
 * Votes `proceed_once` on every permission request a session's event stream brings, until stopped:
 * for tests that drive the built-in agent through a daemon whatever approval mode the workspace
 * ends up in. `await using _ = approveAsks(url, sessionId, events)`.
 */
import { jsonRequest } from "./json-request.ts";
import type { SseClient } from "./sse-client.ts";

export function approveAsks(url: string, sessionId: string, events: SseClient, headers: Record<string, string> = {}): AsyncDisposable {
  const voted = new Set<string>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const ask of events.frames.filter((f) => f.event === "permission_request" && !voted.has(f.data.requestId as string))) {
        voted.add(ask.data.requestId as string);
        await jsonRequest(url, "POST", `/session/${sessionId}/permission/${ask.data.requestId}`, { outcome: { outcome: "selected", optionId: "proceed_once" } }, headers);
      }
      await Bun.sleep(20);
    }
  })();
  return {
    async [Symbol.asyncDispose]() {
      stopped = true;
      await loop;
    },
  };
}
