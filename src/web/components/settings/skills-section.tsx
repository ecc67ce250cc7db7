/**
 * Skills: what the live agent offers (`/workspace/skills`), each enabled or disabled through the
 * toggle route where the daemon advertises it. An agent without skill settings answers 501: said
 * as "not supported by this agent".
 */
import { useState } from "preact/hooks";
import type { StatusCell } from "../../../client/index.ts";
import { client } from "../../app-state.ts";
import { inlinePlain } from "../../inline-plain.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { attempt, LoadedView, OutcomeLine, Section, useLoad, type Outcome, StatusErrors } from "./shared.tsx";

export function SkillsSection({ toggle }: { toggle: boolean }) {
  const [state, reload] = useLoad(() => client.workspaceStatus("skills"));
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState<string | null>(null);

  async function flip(name: string, enabled: boolean) {
    setBusy(name);
    const done = await attempt(() => client.toggleSkill(name, enabled), (a) => `${visibleText(a.skillName)} is ${a.enabled ? "enabled" : "disabled"}.`, "Enabling and disabling skills", setOutcome);
    setBusy(null);
    if (done) reload();
  }

  return (
    <Section id="skills" title="Skills">
      <LoadedView state={state} what="Skills">
        {(body) => {
          const skills = (Array.isArray(body.skills) ? body.skills : []) as StatusCell[];
          return (
            <>
              {!body.initialized && <p class="hint">No agent has started in this workspace yet; its skills show once a session runs.</p>}
              {skills.length === 0 ? (
                <p class="empty">No skills reported.</p>
              ) : (
                <ul class="settings-list" aria-label="Skills">
                  {skills.map((s, i) => {
                    const name = typeof s.name === "string" ? s.name : "";
                    const off = s.status === "disabled";
                    return (
                      <li key={i} class="settings-row">
                        <span class="settings-name">
                          <Visible text={name || "(unnamed)"} />
                        </span>
                        <span class="settings-meta">
                          <Visible text={[typeof s.level === "string" ? s.level : "", off ? `disabled${typeof s.disabledReason === "string" ? ` (${s.disabledReason})` : ""}` : "enabled"].filter(Boolean).join(" · ")} />
                        </span>
                        {typeof s.description === "string" && (
                          <span class="settings-desc">
                            <Visible text={inlinePlain(s.description)} />
                          </span>
                        )}
                        {toggle && name && (
                          <button type="button" disabled={busy !== null} onClick={() => void flip(name, off)}>
                            {off ? "Enable" : "Disable"}
                            <span class="visually-hidden"> {visibleText(name)}</span>
                          </button>
                        )}
                      </li>
                    );
                  })}
                </ul>
              )}
              {!toggle && <p class="hint">Enabling and disabling skills: not available from this daemon.</p>}
              <StatusErrors errors={body.errors} />
            </>
          );
        }}
      </LoadedView>
      <OutcomeLine outcome={outcome} />
    </Section>
  );
}
