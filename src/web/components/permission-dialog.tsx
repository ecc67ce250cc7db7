/**
 * A pending permission request, built so that it cannot be answered by accident:
 * - it never takes focus from a text field the user is typing in; otherwise it focuses the least
 *   permissive option (a refusal), never an "allow";
 * - its buttons ignore activation (click, Enter, Space) for ARMING_MS after a request appears,
 *   and look it (each request mounts afresh, so a new request arms again);
 * - it shows what would run (command, paths, diffs, input; permission-details.ts), hidden
 *   characters marked, not only the agent's title; "always" options look secondary and say what
 *   they widen;
 * - while a vote is being sent every button is disabled, so a second click sends nothing;
 * - Alt+A allows once and Alt+D denies once (shown on the buttons): a chord, so typing never
 *   answers; it too waits for the arming.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { client, guard } from "../app-state.ts";
import { orderedOptions, permissionDetails, safestOption, widening, type Bounded } from "../permission-details.ts";
import type { PendingPermission } from "../transcript-model.ts";
import { shownLineCount } from "../visible-text.ts";
import { DiffView, shownPath } from "./tool-call.tsx";
import { Visible } from "./visible-text.tsx";

/** The options a chord answers: Alt+A allows once, Alt+D denies once. */
const SHORTCUTS: Record<string, string> = { allow_once: "Alt+A", reject_once: "Alt+D" };
const SHORTCUT_KINDS: Record<string, string> = { KeyA: "allow_once", KeyD: "reject_once" };

/** How long a new request's buttons ignore activation. */
export const ARMING_MS = 750;

interface Props {
  sessionId: string;
  request: PendingPermission;
  workspaceCwd: string | undefined;
}

export function PermissionDialog(props: Props) {
  return <RequestDialog key={props.request.requestId} {...props} />;
}

/** Input types that take typed text (every other `<input>` is a control). */
const NON_TEXT_INPUTS = new Set(["button", "submit", "reset", "checkbox", "radio", "file", "image", "range", "color"]);

function isTextEntry(el: Element | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable || el instanceof HTMLTextAreaElement) return true;
  return el instanceof HTMLInputElement && !NON_TEXT_INPUTS.has(el.type);
}

function RequestDialog({ sessionId, request, workspaceCwd }: Props) {
  const [armed, setArmed] = useState(false);
  const [sending, setSending] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  const safestButton = useRef<HTMLButtonElement>(null);
  const details = useMemo(() => permissionDetails(request), [request]);
  const options = useMemo(() => orderedOptions(request.options), [request.options]);
  const safest = safestOption(request.options);

  // Before the first paint, so no keystroke lands between the dialog showing and the focus moving.
  useLayoutEffect(() => {
    if (isTextEntry(document.activeElement)) return;
    (safestButton.current ?? dialog.current)?.focus();
  }, []);
  useEffect(() => {
    const timer = setTimeout(() => setArmed(true), ARMING_MS);
    return () => clearTimeout(timer);
  }, []);

  const vote = async (optionId: string) => {
    if (!armed) return;
    setSending(true);
    const ok = await guard(() => client.vote(sessionId, request.requestId, { outcome: "selected", optionId }));
    if (ok === undefined) setSending(false);
  };
  const button = (o: PendingPermission["options"][number], extra: Record<string, string> = {}) => (
    <button
      key={o.optionId}
      type="button"
      ref={o === safest ? safestButton : undefined}
      class={`${o.kind === "allow_once" ? "primary" : o.kind === "allow_always" ? "always" : ""}${armed ? "" : " arming"}`}
      aria-disabled={armed ? undefined : "true"}
      disabled={sending}
      onClick={() => void vote(o.optionId)}
      aria-keyshortcuts={SHORTCUTS[o.kind ?? ""]}
      {...extra}
    >
      <Visible text={o.name} />
      {SHORTCUTS[o.kind ?? ""] && (
        <kbd class="key" aria-hidden="true">
          {SHORTCUTS[o.kind ?? ""]}
        </kbd>
      )}
    </button>
  );
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || sending) return;
      const kind = SHORTCUT_KINDS[e.code];
      const option = kind && request.options.find((o) => o.kind === kind);
      if (!option) return;
      e.preventDefault();
      void vote(option.optionId);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  });
  const always = options.filter((o) => o.kind === "allow_always");
  const shown = details.command !== null || details.diffs.length > 0;
  return (
    <div role="dialog" aria-label="Permission request" aria-describedby="permission-title" class="permission card" tabIndex={-1} ref={dialog}>
      <p class="permission-lead">The agent asks permission for:</p>
      <p id="permission-title" class="permission-title">
        <Cut value={details.title} />
      </p>
      {details.command && (
        <Section label="Command">
          <pre class="permission-text" aria-label="Command">
            <Cut value={details.command} multiline blanks />
          </pre>
          {shownLineCount(details.command.text) > COMMAND_LINES_SHOWN && <p class="notice-line">{`The command has ${shownLineCount(details.command.text)} lines: scroll to read all of it.`}</p>}
        </Section>
      )}
      {details.paths.length > 0 && (
        <Section label="Paths">
          <ul class="permission-paths" aria-label="Paths">
            {details.paths.map((l, i) => (
              <li key={i}>
                <Visible text={shownPath(l.path, workspaceCwd)} />
                {l.line === undefined ? "" : `:${l.line}`}
              </li>
            ))}
          </ul>
          {details.omittedPaths > 0 && <p class="notice-line">{details.omittedPaths} more paths not shown.</p>}
        </Section>
      )}
      {details.diffs.map((d, i) => (
        <DiffView key={i} diff={d} path={shownPath(d.path, workspaceCwd)} />
      ))}
      {details.omittedDiffs > 0 && <p class="notice-line">{details.omittedDiffs} more diffs not shown.</p>}
      {details.texts.map((t, i) => (
        <pre key={i} class="permission-text" aria-label="Details">
          <Cut value={t} multiline blanks />
        </pre>
      ))}
      {details.input &&
        (shown ? (
          <details class="permission-input">
            <summary>Input</summary>
            <InputView input={details.input} />
          </details>
        ) : (
          <Section label="Input">
            <InputView input={details.input} />
          </Section>
        ))}
      {!shown && !details.input && details.paths.length === 0 && details.texts.length === 0 && (
        <p class="notice-line">The agent sent nothing about this call but its title.</p>
      )}
      <div class="permission-options">{options.filter((o) => o.kind !== "allow_always").map((o) => button(o))}</div>
      {always.map((o, i) => (
        <div key={o.optionId} class="permission-always">
          {button(o, { "aria-describedby": `permission-widens-${i}` })}
          <span id={`permission-widens-${i}`} class="widens">
            <Visible text={widening(request, details)} />
          </span>
        </div>
      ))}
      <p class={`arming-note${armed ? " armed" : ""}`} aria-hidden={armed ? "true" : undefined}>
        The buttons work in a moment, so a stray key or click cannot answer.
      </p>
    </div>
  );
}

function Section({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <section class="permission-section">
      <h3>{label}</h3>
      {children}
    </section>
  );
}

function InputView({ input }: { input: Bounded }) {
  return (
    <pre class="permission-text" aria-label="Input">
      <Cut value={input} multiline />
    </pre>
  );
}

/** A bounded text, marked, with a note of what was left out. */
/** Lines of a command the box shows without scrolling (about its max-height); past it a note says how many there are. */
const COMMAND_LINES_SHOWN = 10;

function Cut({ value, multiline = false, blanks = false }: { value: Bounded; multiline?: boolean; blanks?: boolean }) {
  return (
    <>
      <Visible text={value.text} multiline={multiline} blanks={blanks} />
      {value.omitted > 0 && <span class="cut-note">{` … ${value.omitted} more characters not shown`}</span>}
    </>
  );
}
