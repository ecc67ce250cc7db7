/**
 * The transcript: user and agent messages, thoughts, plans, tool calls, how each turn ended (with
 * a rewind to before it, `rewind-control.tsx`), errors; follows the bottom while the reader is there.
 *
 * Bound: only the last `WINDOW` items render at first (a long session's reopen lays out a screenful,
 * not hundreds of messages); "Show earlier" adds `WINDOW` more at a time. Items off screen skip
 * layout (`content-visibility: auto`).
 */
import { Component, type ComponentChildren } from "preact";
import { memo } from "preact/compat";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { formatDuration } from "../format.ts";
import type { Item, TranscriptSnapshot } from "../transcript-model.ts";
import { Markdown } from "./markdown-view.tsx";
import { RewindControl } from "./rewind-control.tsx";
import { ToolCallView } from "./tool-call.tsx";

export function TranscriptView({ snapshot, workspaceCwd, sessionId }: { snapshot: TranscriptSnapshot; workspaceCwd: string | undefined; sessionId: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });
  const [shown, setShown] = useState(WINDOW);
  const lastIndex = snapshot.items.length - 1;
  const from = Math.max(0, snapshot.items.length - shown);
  return (
    <div
      class="transcript"
      role="log"
      aria-label="Transcript"
      tabIndex={0}
      ref={ref}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {snapshot.dropped > 0 && from === 0 && <p class="notice-line">{snapshot.dropped} earlier items are not shown here.</p>}
      {from > 0 && (
        <button
          type="button"
          class="quiet show-earlier"
          onClick={() => {
            pinned.current = false;
            setShown(shown + WINDOW);
          }}
        >
          Show {Math.min(from, WINDOW)} earlier items
        </button>
      )}
      {snapshot.items.length === 0 && !snapshot.ended && <p class="empty transcript-empty">Nothing here yet. Ask the agent something below.</p>}
      {snapshot.items.slice(from).map((item, i) => (
        <ItemBoundary key={item.key}>
          <ItemView item={item} streaming={snapshot.running && from + i === lastIndex} workspaceCwd={workspaceCwd} sessionId={sessionId} />
        </ItemBoundary>
      ))}
      {snapshot.ended && <p class="notice-line">Session ended ({snapshot.ended.replace(/_/g, " ")}).</p>}
    </div>
  );
}

/** Items rendered at first, and added by each "Show earlier". */
const WINDOW = 60;

/** How a turn ended, in words (ACP stop reasons). */
const STOP_TEXT: Record<string, string> = {
  end_turn: "Done",
  cancelled: "Cancelled",
  max_tokens: "Stopped: the model reached its output limit",
  max_turn_requests: "Stopped: too many steps in one turn",
  refusal: "The model refused to go on",
};
const STOP_ICON: Record<string, string> = { end_turn: "✓", cancelled: "■" };

/**
 * One transcript item's error boundary: an item that fails to render shows a line saying so, and
 * the items around it (and those still to come) render as usual. It stays failed for good (the
 * item's data will most likely fail again).
 */
class ItemBoundary extends Component<{ children: ComponentChildren }, { failed: boolean }> {
  override state = { failed: false };

  static override getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.warn("a transcript item could not be rendered", error);
  }

  override render() {
    return this.state.failed ? <p class="notice-line">Could not render this item.</p> : this.props.children;
  }
}

const ItemView = memo(function ItemView({ item, streaming, workspaceCwd, sessionId }: { item: Item; streaming: boolean; workspaceCwd: string | undefined; sessionId: string }) {
  switch (item.kind) {
    case "user":
      return (
        <article class="msg user" aria-label="You">
          <Markdown text={item.text} />
        </article>
      );
    case "agent":
      return (
        <article class="msg agent" aria-label="Agent">
          <Markdown text={item.text} streaming={streaming} />
        </article>
      );
    case "thought":
      return (
        <details class="thought">
          <summary>{streaming ? "Thinking…" : "Thought"}</summary>
          <Markdown text={item.text} streaming={streaming} />
        </details>
      );
    case "plan":
      return (
        <ol class="plan" aria-label="Plan">
          {item.entries.map((e, i) => (
            <li key={i} class={`plan-${e.status}`}>
              <span class="plan-status">{e.status.replace(/_/g, " ")}</span> {e.content}
            </li>
          ))}
        </ol>
      );
    case "tool":
      return <ToolCallView item={item} workspaceCwd={workspaceCwd} />;
    case "turn":
      return (
        <>
          <p class={`turn-end stop-${item.stopReason}`} aria-label="Turn ended">
            <span aria-hidden="true">{STOP_ICON[item.stopReason] ?? "●"}</span> {STOP_TEXT[item.stopReason] ?? `Stopped (${item.stopReason.replace(/_/g, " ")})`}
            {item.ms !== undefined && <span class="turn-time"> · {formatDuration(item.ms)}</span>}
          </p>
          {item.promptId !== undefined && <RewindControl key={item.promptId} sessionId={sessionId} promptId={item.promptId} />}
        </>
      );
    case "error":
      return (
        <p class="turn-error" role="alert">
          {item.turn && <span aria-hidden="true">✕ </span>}
          {item.turn ? `Failed: ${item.message}` : item.message}
          {item.turn?.ms !== undefined && <span class="turn-time"> · {formatDuration(item.turn.ms)}</span>}
        </p>
      );
    case "notice":
      return <p class="notice-line">{item.text}</p>;
  }
});
