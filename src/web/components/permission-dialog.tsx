/** A pending permission request: the tool's title and one button per offered option. */
import { useEffect, useRef, useState } from "preact/hooks";
import { client, guard } from "../app-state.ts";
import type { PendingPermission } from "../transcript-model.ts";

export function PermissionDialog({ sessionId, request }: { sessionId: string; request: PendingPermission }) {
  const [sending, setSending] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    setSending(false);
    ref.current?.querySelector("button")?.focus();
  }, [request.requestId]);
  const vote = async (optionId: string) => {
    setSending(true);
    const ok = await guard(() => client.vote(sessionId, request.requestId, { outcome: "selected", optionId }));
    if (ok === undefined) setSending(false);
  };
  return (
    <div role="dialog" aria-label="Permission request" aria-describedby="permission-title" class="permission card" ref={ref}>
      <p class="permission-lead">The agent asks to run:</p>
      <p id="permission-title" class="permission-title">
        {request.title}
      </p>
      <div class="permission-options">
        {request.options.map((o) => (
          <button key={o.optionId} type="button" class={o.kind?.startsWith("reject") ? "" : "primary"} disabled={sending} onClick={() => vote(o.optionId)}>
            {o.name}
          </button>
        ))}
      </div>
    </div>
  );
}
