/**
 * The transcript: user and agent messages, thoughts, plans, tool calls, how each turn ended (with
 * a rewind to before it, `rewind-control.tsx`, and a branch from it, `branch-control.tsx`), errors; follows the bottom while the reader is there.
 *
 * Bound: only the last `WINDOW` items render at first (a long session's reopen lays out a screenful,
 * not hundreds of messages); "Show earlier" adds `WINDOW` more at a time. Items off screen skip
 * layout (`content-visibility: auto`). A branch's transcript starts with the parent's turns it inherited.
 */
import { Component, type ComponentChildren } from "preact";
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { reportAuth } from "../app-state.ts";
import { formatDuration } from "../format.ts";
import { inheritedTurns } from "../inherited-turns.ts";
import { sessionHash } from "../route.ts";
import type { Item, TranscriptSnapshot } from "../transcript-model.ts";
import { Markdown } from "./markdown-view.tsx";
import { BranchControl } from "./branch-control.tsx";
import { RewindControl } from "./rewind-control.tsx";
import { ToolCallView } from "./tool-call.tsx";

/** `inherited`: a branch's parent and the parent's turn it starts after, whose turns lead the transcript. */
export function TranscriptView(props: { snapshot: TranscriptSnapshot; workspaceCwd: string | undefined; sessionId: string; inherited?: { parentId: string; promptId: string; parentName: string } }) {
  const { snapshot, workspaceCwd, sessionId, inherited } = props;
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });
  const [shown, setShown] = useState(WINDOW);
  const lastIndex = snapshot.items.length - 1;
  const from = Math.max(0, snapshot.items.length - shown);
  const branchBlocked = whyNoBranch(snapshot);
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
      {inherited && from === 0 && snapshot.dropped === 0 && <InheritedTurns {...inherited} workspaceCwd={workspaceCwd} />}
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
          <ItemView item={item} streaming={snapshot.running && from + i === lastIndex} workspaceCwd={workspaceCwd} sessionId={sessionId} branchBlocked={item.kind === "turn" ? branchBlocked : null} />
        </ItemBoundary>
      ))}
      {snapshot.ended && <p class="notice-line">Session ended ({snapshot.ended.replace(/_/g, " ")}).</p>}
    </div>
  );
}

/**
 * A branch's inherited turns (inherited-turns.ts), read-only, under a line naming the parent. A
 * parent whose turns cannot be read (deleted since, or the turn beyond the read bound) is said so.
 */
function InheritedTurns({ parentId, promptId, parentName, workspaceCwd }: { parentId: string; promptId: string; parentName: string; workspaceCwd: string | undefined }) {
  const [turns, setTurns] = useState<TranscriptSnapshot | "missing" | "failed" | null>(null);
  useEffect(() => {
    let gone = false;
    inheritedTurns(parentId, promptId).then(
      (snapshot) => !gone && setTurns(snapshot ?? "missing"),
      (error) => !gone && !reportAuth(error) && setTurns("failed"),
    );
    return () => void (gone = true);
  }, [parentId, promptId]);
  return (
    <section class="inherited" aria-label="Inherited conversation">
      <p class="notice-line">
        From <a href={sessionHash(parentId)}>{parentName}</a>, up to the turn this branch starts after:
      </p>
      {turns === null ? (
        <p class="notice-line">Reading the parent's turns…</p>
      ) : turns === "missing" || turns === "failed" ? (
        <p class="notice-line">The parent's turns could not be read{turns === "failed" ? " (it may have been deleted)" : ""}.</p>
      ) : (
        turns.items.map((item) => (
          <ItemBoundary key={item.key}>
            <ItemView item={item} streaming={false} workspaceCwd={workspaceCwd} sessionId={null} branchBlocked={null} />
          </ItemBoundary>
        ))
      )}
      <p class="notice-line inherited-end">The branch starts here.</p>
    </section>
  );
}

/** Why no turn can be branched from now (the daemon would refuse), or null. */
function whyNoBranch(snapshot: TranscriptSnapshot): string | null {
  if (snapshot.ended) return "The session has ended: reopen it to branch.";
  if (snapshot.running || snapshot.queued.length > 0 || snapshot.permissions.length > 0) return "Waits for the running turn to end.";
  return null;
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

/** `sessionId` null: an item shown read-only (an inherited turn: no rewind, no branch). */
const ItemView = memo(function ItemView(props: { item: Item; streaming: boolean; workspaceCwd: string | undefined; sessionId: string | null; branchBlocked: string | null }) {
  const { item, streaming, workspaceCwd, sessionId, branchBlocked } = props;
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
          {item.promptId !== undefined && sessionId !== null && (
            <div class="turn-actions">
              <RewindControl key={item.promptId} sessionId={sessionId} promptId={item.promptId} />
              <BranchControl key={`branch:${item.promptId}`} sessionId={sessionId} promptId={item.promptId} blocked={branchBlocked} />
            </div>
          )}
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
