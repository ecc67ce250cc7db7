/** One tool call: title, status, diffs of edits and text output, hidden characters marked in all of them. */
import { useMemo } from "preact/hooks";
import { diffLines } from "../diff-lines.ts";
import type { DiffContent, ToolItem } from "../transcript-model.ts";
import { visibleText } from "../visible-text.ts";
import { Visible } from "./visible-text.tsx";

const STATUS_TEXT = { pending: "pending", in_progress: "in progress", completed: "completed", failed: "failed" } as const;

/** A path relative to the workspace when it lies inside it. */
export function shownPath(path: string, workspaceCwd: string | undefined): string {
  if (workspaceCwd && path.startsWith(`${workspaceCwd}/`)) return path.slice(workspaceCwd.length + 1);
  return path;
}

export function ToolCallView({ item, workspaceCwd }: { item: ToolItem; workspaceCwd: string | undefined }) {
  return (
    <div role="group" aria-label={`Tool call: ${visibleText(item.title)}`} class={`tool tool-${item.status}`}>
      <div class="tool-head">
        <span class="tool-title">
          <Visible text={item.title} />
        </span>
        <span class={`tool-status ${item.status}`}>{STATUS_TEXT[item.status]}</span>
      </div>
      {item.content.map((c, i) =>
        c.type === "diff" ? (
          <DiffView key={i} diff={c} path={shownPath(c.path, workspaceCwd)} />
        ) : c.type === "text" ? (
          <pre key={i} class="output" aria-label="Output">
            <Visible text={c.text} multiline />
          </pre>
        ) : (
          <p key={i} class="notice-line">
            Terminal <Visible text={c.terminalId} />
          </p>
        ),
      )}
    </div>
  );
}

/** An edit's diff, bounded by diff-lines.ts; its accessible name is `Diff <path>`. */
export function DiffView({ diff, path }: { diff: DiffContent; path: string }) {
  const { lines, omitted } = useMemo(() => diffLines(diff.oldText, diff.newText), [diff.oldText, diff.newText]);
  return (
    <figure class="diff" aria-label={`Diff ${visibleText(path)}`}>
      <figcaption>
        <Visible text={path} />
      </figcaption>
      <pre>
        {lines.map((l, i) => (
          <span key={i} class={l.sign === "+" ? "add" : l.sign === "-" ? "del" : "ctx"}>
            {l.sign}
            <Visible text={l.text} multiline />
            {"\n"}
          </span>
        ))}
      </pre>
      {omitted > 0 && <p class="notice-line">{omitted} more lines not shown.</p>}
    </figure>
  );
}
