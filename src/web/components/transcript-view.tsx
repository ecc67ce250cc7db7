/** The transcript: user and agent messages, thoughts, plans, tool calls, errors; follows the bottom while the reader is there. */
import { Component, type ComponentChildren } from "preact";
import { memo } from "preact/compat";
import { useLayoutEffect, useRef } from "preact/hooks";
import type { Item, TranscriptSnapshot } from "../transcript-model.ts";
import { Markdown } from "./markdown-view.tsx";
import { ToolCallView } from "./tool-call.tsx";

export function TranscriptView({ snapshot, workspaceCwd }: { snapshot: TranscriptSnapshot; workspaceCwd: string | undefined }) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });
  const lastIndex = snapshot.items.length - 1;
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
      {snapshot.dropped > 0 && <p class="notice-line">{snapshot.dropped} earlier items are not shown here.</p>}
      {snapshot.items.map((item, i) => (
        <ItemBoundary key={item.key}>
          <ItemView item={item} streaming={snapshot.running && i === lastIndex} workspaceCwd={workspaceCwd} />
        </ItemBoundary>
      ))}
      {snapshot.ended && <p class="notice-line">Session ended ({snapshot.ended.replace(/_/g, " ")}).</p>}
    </div>
  );
}

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

const ItemView = memo(function ItemView({ item, streaming, workspaceCwd }: { item: Item; streaming: boolean; workspaceCwd: string | undefined }) {
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
          <summary>Thinking</summary>
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
    case "error":
      return (
        <p class="turn-error" role="alert">
          {item.message}
        </p>
      );
    case "notice":
      return <p class="notice-line">{item.text}</p>;
  }
});
