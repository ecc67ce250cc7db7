/**
 * Extensions: the installed ones (`/workspace/extensions`) and whether each is active here, each
 * activated or deactivated at user level. A change the daemon runs as an operation is said so;
 * the list is read again after it.
 */
import { useState } from "preact/hooks";
import type { ExtensionEntry, ExtensionOperation } from "../../../client/index.ts";
import { client } from "../../app-state.ts";
import { inlinePlain } from "../../inline-plain.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { attempt, LoadedView, OutcomeLine, Section, useLoad, type Outcome } from "./shared.tsx";

const label = (e: ExtensionEntry) => e.displayName ?? e.name;

function outcomeText(e: ExtensionEntry, active: boolean, answer: ExtensionOperation | undefined): string {
  const id = answer?.operationId ?? answer?.id;
  const status = typeof answer?.status === "string" ? answer.status : undefined;
  const what = `${visibleText(label(e))} ${active ? "activated" : "deactivated"}`;
  return id ? `${what}: operation ${visibleText(String(id))}${status ? ` ${visibleText(status)}` : ""}.` : `${what}.`;
}

export function ExtensionsSection() {
  const [state, reload] = useLoad(() => client.extensions());
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);

  async function set(e: ExtensionEntry, active: boolean) {
    setBusy(true);
    let answer: ExtensionOperation | undefined;
    const done = await attempt(
      async () => (answer = await client.setExtensionActive(e.name, active)),
      () => outcomeText(e, active, answer),
      "Activating extensions",
      setOutcome,
    );
    setBusy(false);
    if (done !== undefined) reload();
  }

  return (
    <Section id="extensions" title="Extensions">
      <LoadedView state={state} what="Extensions">
        {(body) =>
          body.extensions.length === 0 ? (
            <p class="empty">No extensions installed.</p>
          ) : (
            <ul class="settings-list" aria-label="Extensions">
              {body.extensions.map((e) => (
                <li key={e.id} class="settings-row">
                  <span class="settings-name">
                    <Visible text={label(e)} />
                  </span>
                  <span class="settings-meta">
                    <Visible text={[e.version, e.isActive ? "active" : "inactive", e.installType ?? ""].filter(Boolean).join(" · ")} />
                  </span>
                  {e.description && (
                    <span class="settings-desc">
                      <Visible text={inlinePlain(e.description)} />
                    </span>
                  )}
                  <button type="button" disabled={busy} onClick={() => void set(e, !e.isActive)}>
                    {e.isActive ? "Deactivate" : "Activate"}
                    <span class="visually-hidden"> {visibleText(label(e))}</span>
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
      <OutcomeLine outcome={outcome} />
    </Section>
  );
}
