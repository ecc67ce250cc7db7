/** One tool call, collapsible: status icon, title, kind, duration; diffs of edits and text output, hidden characters marked in all of them. */
import { useMemo, useState } from "preact/hooks";
import { diffLines } from "../diff-lines.ts";
import { formatDuration } from "../format.ts";
import { languageOf } from "../languages.ts";
import { inlinePlain } from "../inline-plain.ts";
import type { DiffContent, ToolItem } from "../transcript-model.ts";
import { visibleText } from "../visible-text.ts";
import { CodeLine, useHighlighter } from "./highlighted.tsx";
import { BoundedText } from "./long-text.tsx";
import { Visible } from "./visible-text.tsx";

const STATUS_TEXT = { pending: "pending", in_progress: "in progress", completed: "completed", failed: "failed" } as const;

/** A path relative to the workspace when it lies inside it. */
export function shownPath(path: string, workspaceCwd: string | undefined): string {
  if (workspaceCwd && path.startsWith(`${workspaceCwd}/`)) return path.slice(workspaceCwd.length + 1);
  return path;
}

/** Output lines from which a finished call starts collapsed. */
const COLLAPSE_LINES = 8;
const STATUS_ICON = { pending: "○", in_progress: "◌", completed: "✓", failed: "✕" } as const;

/** A tool's title as words, with paths inside the workspace made relative (as its diffs show them). */
export function toolTitle(title: string, workspaceCwd: string | undefined): string {
  const plain = inlinePlain(title);
  return workspaceCwd ? plain.split(`${workspaceCwd}/`).join("") : plain;
}

export function ToolCallView({ item, workspaceCwd }: { item: ToolItem; workspaceCwd: string | undefined }) {
  const title = toolTitle(item.title, workspaceCwd);
  const long = item.content.some((c) => c.type === "text" && c.text.split("\n", COLLAPSE_LINES + 1).length > COLLAPSE_LINES);
  const [open, setOpen] = useState(!(item.status === "completed" && long && !item.content.some((c) => c.type === "diff")));
  const ms = item.startedAt !== undefined && item.endedAt !== undefined ? item.endedAt - item.startedAt : undefined;
  const bodyId = `tool-body-${item.key}`;
  return (
    <div role="group" aria-label={`Tool call: ${visibleText(title)}`} class={`tool tool-${item.status}`}>
      <div class="tool-head">
        <button type="button" class="tool-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
          <span class={`tool-icon ${item.status}`} aria-hidden="true">
            {STATUS_ICON[item.status]}
          </span>
          <span class="tool-title">
            <Visible text={title} />
          </span>
        </button>
        {item.toolKind && <span class="tool-kind">{item.toolKind}</span>}
        {ms !== undefined && <span class="tool-time">{formatDuration(ms)}</span>}
        <span class={`tool-status ${item.status}`}>{STATUS_TEXT[item.status]}</span>
      </div>
      {open && (
        <div class="tool-body" id={bodyId}>
          {item.locations.length > 0 && !item.content.some((c) => c.type === "diff") && (
            <p class="tool-paths">
              {item.locations.map((l, i) => (
                <code key={i}>
                  <Visible text={shownPath(l.path, workspaceCwd)} />
                  {l.line === undefined ? "" : `:${l.line}`}
                </code>
              ))}
            </p>
          )}
          {item.content.map((c, i) =>
            c.type === "diff" ? (
              <DiffView key={i} diff={c} path={shownPath(c.path, workspaceCwd)} />
            ) : c.type === "text" ? (
              <pre key={i} class="output" aria-label="Output">
                <BoundedText text={c.text} />
              </pre>
            ) : (
              <p key={i} class="notice-line">
                Terminal <Visible text={c.terminalId} />
              </p>
            ),
          )}
        </div>
      )}
    </div>
  );
}

/** An edit's diff, bounded by diff-lines.ts; its accessible name is `Diff <path>`. */
export function DiffView({ diff, path }: { diff: DiffContent; path: string }) {
  const { lines, omitted } = useMemo(() => diffLines(diff.oldText, diff.newText), [diff.oldText, diff.newText]);
  const language = languageOf(path);
  const h = useHighlighter(language !== undefined && lines.length > 0);
  return (
    <figure class="diff" aria-label={`Diff ${visibleText(path)}`}>
      <figcaption>
        <Visible text={path} />
      </figcaption>
      <pre>
        {lines.map((l, i) => (
          <span key={i} class={l.sign === "+" ? "add" : l.sign === "-" ? "del" : "ctx"}>
            {l.sign}
            <CodeLine text={l.text} language={language} h={h} />
            {"\n"}
          </span>
        ))}
      </pre>
      {omitted > 0 && <p class="notice-line">{omitted} more lines not shown.</p>}
    </figure>
  );
}
