/**
 * Agents: the subagent definitions (`/workspace/agents`), one shown on request with its system
 * prompt, and a definition drafted by the model from a description where the daemon advertises
 * `workspace_agent_generate` (shown, not saved).
 */
import { useState } from "preact/hooks";
import type { AgentDetail, GeneratedAgent } from "../../../client/index.ts";
import { client } from "../../app-state.ts";
import { inlinePlain } from "../../inline-plain.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { attempt, failure, LoadedView, OutcomeLine, Section, useLoad, type Outcome } from "./shared.tsx";

export function AgentsSection({ generate }: { generate: boolean }) {
  const [state] = useLoad(() => client.agents());
  const [shown, setShown] = useState<{ name: string; detail?: AgentDetail; error?: string } | null>(null);

  async function view(name: string) {
    setShown({ name });
    try {
      setShown({ name, detail: await client.agent(name) });
    } catch (error) {
      setShown({ name, error: failure(error) });
    }
  }

  return (
    <Section id="agents" title="Agents">
      <LoadedView state={state} what="Agents">
        {(body) =>
          body.agents.length === 0 ? (
            <p class="empty">No agent definitions.</p>
          ) : (
            <ul class="settings-list" aria-label="Agents">
              {body.agents.map((a) => (
                <li key={`${a.level}:${a.name}`} class="settings-row">
                  <span class="settings-name">
                    <Visible text={a.name} />
                  </span>
                  <span class="settings-meta">
                    <Visible text={[a.level, a.model ?? "", a.extensionName ? `from ${a.extensionName}` : ""].filter(Boolean).join(" · ")} />
                  </span>
                  <span class="settings-desc">
                    <Visible text={inlinePlain(a.description)} />
                  </span>
                  <button type="button" onClick={() => void view(a.name)}>
                    View<span class="visually-hidden"> {visibleText(a.name)}</span>
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
      {shown && (
        <div class="settings-viewer" role="region" aria-label="Agent definition">
          <p class="settings-name">
            <Visible text={shown.name} />
          </p>
          {shown.error ? (
            <p role="alert" class="settings-error">
              {shown.error}
            </p>
          ) : shown.detail ? (
            <>
              <p class="settings-desc">
                <Visible text={shown.detail.description} multiline blanks />
              </p>
              {shown.detail.tools && (
                <p class="settings-meta">
                  Tools: <Visible text={shown.detail.tools.join(", ")} />
                </p>
              )}
              <pre class="settings-pre">
                <Visible text={shown.detail.systemPrompt} multiline blanks />
              </pre>
            </>
          ) : (
            <p class="empty">Loading…</p>
          )}
          <button type="button" onClick={() => setShown(null)}>
            Close
          </button>
        </div>
      )}
      {generate ? <Generate /> : <p class="hint">Drafting an agent from a description: not available from this daemon.</p>}
    </Section>
  );
}

function Generate() {
  const [description, setDescription] = useState("");
  const [draft, setDraft] = useState<GeneratedAgent | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setDraft(null);
    const answer = await attempt(() => client.generateAgent(description.trim()), () => "Drafted (not saved).", "Drafting agents", setOutcome);
    setBusy(false);
    if (answer) setDraft(answer);
  }
  return (
    <form class="settings-form" aria-label="Draft an agent" onSubmit={(e) => void submit(e)}>
      <label class="settings-field">
        <span>Describe the agent to draft</span>
        <textarea rows={3} maxLength={4096} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <div class="settings-actions">
        <button type="submit" disabled={busy || description.trim() === ""}>
          {busy ? "Drafting…" : "Draft agent"}
        </button>
      </div>
      <OutcomeLine outcome={outcome} />
      {draft && (
        <div class="settings-viewer" role="region" aria-label="Drafted agent">
          <p class="settings-name">
            <Visible text={String(draft.name ?? "(no name)")} />
          </p>
          <p class="settings-desc">
            <Visible text={String(draft.description ?? "")} multiline blanks />
          </p>
          <pre class="settings-pre">
            <Visible text={String(draft.systemPrompt ?? JSON.stringify(draft, null, 2))} multiline blanks />
          </pre>
        </div>
      )}
    </form>
  );
}
