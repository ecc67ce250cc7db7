/**
 * What the settings sections share: loading a route's answer with its failure kept (`useLoad`),
 * telling "this daemon or agent does not offer it" (404/501) from a real failure, and the lines
 * that say so, and a status answer's error cells (`StatusErrors`). Every failure is shown in the section it belongs to; a bearer 401 opens the token prompt.
 */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { DaemonApiError } from "../../../client/index.ts";
import { describe, reportAuth } from "../../app-state.ts";
import { Visible } from "../visible-text.tsx";

export type Loaded<T> = { kind: "loading" } | { kind: "ok"; body: T } | { kind: "unavailable"; status: number; message: string } | { kind: "error"; message: string };

/** The daemon has no such route (404 without a code of its own) or the agent lacks the method (501). */
export function unavailable(error: unknown): number | undefined {
  if (!(error instanceof DaemonApiError)) return undefined;
  if (error.status === 501) return 501;
  if (error.status === 404 && (error.code === undefined || error.code === "not_found" || error.code === "route_not_found")) return 404;
  return undefined;
}

/** A failure as one line for the user (the token prompt opens for a bearer 401). */
export function failure(error: unknown): string {
  reportAuth(error);
  if (error instanceof DaemonApiError && error.code === "token_required") return `${describe(error)} — start the daemon with a token and enter it to change settings.`;
  return describe(error);
}

/** Calls `load` now and on `reload()`; a later answer replaces an earlier one only if it is the newest asked. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): [Loaded<T>, () => void] {
  const [state, setState] = useState<Loaded<T>>({ kind: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (body) => current && setState({ kind: "ok", body }),
      (error) => {
        if (!current) return;
        const status = unavailable(error);
        setState(status === undefined ? { kind: "error", message: failure(error) } : { kind: "unavailable", status, message: describe(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [round, ...deps]);
  return [state, useCallback(() => setRound((r) => r + 1), [])];
}

/** The loading, unavailable and failed states of a load; `children` renders the answer. */
export function LoadedView<T>({ state, what, children }: { state: Loaded<T>; what: string; children: (body: T) => ComponentChildren }) {
  if (state.kind === "loading") return <p class="empty">Loading…</p>;
  if (state.kind === "unavailable") return <NotAvailable status={state.status} what={what} />;
  if (state.kind === "error") return <p role="alert" class="settings-error">{state.message}</p>;
  return <>{children(state.body)}</>;
}

export function NotAvailable({ status, what }: { status: number; what: string }) {
  return <p class="empty">{status === 501 ? `${what}: not supported by this agent.` : `${what}: not available from this daemon.`}</p>;
}

/** A section's card with its heading (the region's name). */
export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card settings-section" aria-labelledby={`settings-${id}`}>
      <h2 id={`settings-${id}`}>{title}</h2>
      {children}
    </section>
  );
}

/** The outcome of a change: a status line, or the failure as an alert. */
export type Outcome = { ok: boolean; text: string } | null;

export function OutcomeLine({ outcome }: { outcome: Outcome }) {
  if (outcome === null) return null;
  return outcome.ok ? (
    <p role="status" class="settings-ok">
      {outcome.text}
    </p>
  ) : (
    <p role="alert" class="settings-error">
      {outcome.text}
    </p>
  );
}

/** Runs a change, reporting its outcome: `done` gives the success line; a 501 says the agent does not support it. */
export async function attempt<T>(run: () => Promise<T>, done: (answer: T) => string, what: string, set: (o: Outcome) => void): Promise<T | undefined> {
  try {
    const answer = await run();
    set({ ok: true, text: done(answer) });
    return answer;
  } catch (error) {
    const status = unavailable(error);
    set({ ok: false, text: status === 501 ? `${what}: not supported by this agent (${describe(error)}).` : status === 404 ? `${what}: not available from this daemon.` : failure(error) });
    return undefined;
  }
}

export const formatBytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

/** A status answer's error cells, one warning line each, hidden characters marked. */
export function StatusErrors({ errors }: { errors: readonly { kind?: string; errorKind?: string; error?: string; hint?: string }[] | undefined }) {
  return (
    <>
      {(errors ?? []).map((e, i) => (
        <p key={i} class="settings-warning">
          <Visible text={[e.kind ?? e.errorKind, e.error, e.hint].filter(Boolean).join(": ")} />
        </p>
      ))}
    </>
  );
}
