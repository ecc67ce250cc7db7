/**
 * The settings area (`#/settings[/<section>]`): memory, hooks, language, skills, MCP servers,
 * agents and extensions of the daemon's primary workspace, one section at a time, picked from
 * its own navigation. Each section, and each of its actions, shows only where the daemon
 * advertises its capability tag (`/capabilities`); a route that is missing anyway says so.
 */
import type { ComponentChildren } from "preact";
import { client } from "../../app-state.ts";
import { go } from "../../route.ts";
import { currentWorkspace } from "../../workspaces.ts";
import { AgentsSection } from "./agents-section.tsx";
import { ExtensionsSection } from "./extensions-section.tsx";
import { HooksSection } from "./hooks-section.tsx";
import { LanguageSection } from "./language-section.tsx";
import { McpSection } from "./mcp-section.tsx";
import { MemorySection } from "./memory-section.tsx";
import { LoadedView, Section, useLoad } from "./shared.tsx";
import { SkillsSection } from "./skills-section.tsx";

export const SETTINGS_SECTIONS = [
  { id: "memory", title: "Memory" },
  { id: "hooks", title: "Hooks" },
  { id: "language", title: "Language" },
  { id: "skills", title: "Skills" },
  { id: "mcp", title: "MCP servers" },
  { id: "agents", title: "Agents" },
  { id: "extensions", title: "Extensions" },
] as const;

export function SettingsView({ section }: { section: string | undefined }) {
  const [caps] = useLoad(() => client.capabilities());
  const current = SETTINGS_SECTIONS.find((s) => s.id === section) ?? SETTINGS_SECTIONS[0];
  const ws = currentWorkspace.value;
  return (
    <div class="settings">
      <h1 class="settings-title">Settings</h1>
      {ws && !ws.primary && <p class="hint">These settings are the daemon's primary workspace's, not the one selected.</p>}
      <nav aria-label="Settings sections" class="settings-nav">
        {SETTINGS_SECTIONS.map((s) => (
          <button key={s.id} type="button" aria-current={s.id === current.id ? "page" : undefined} onClick={() => go(`#/settings/${s.id}`)}>
            {s.title}
          </button>
        ))}
      </nav>
      <LoadedView state={caps} what="Capabilities">
        {(body) => <SectionFor id={current.id} title={current.title} has={(tag) => body.features.includes(tag)} />}
      </LoadedView>
    </div>
  );
}

function SectionFor({ id, title, has }: { id: (typeof SETTINGS_SECTIONS)[number]["id"]; title: string; has: (tag: string) => boolean }) {
  const offered = (tags: string[], children: () => ComponentChildren) =>
    tags.some(has) ? (
      <>{children()}</>
    ) : (
      <Section id={id} title={title}>
        <p class="empty">{title}: not available from this daemon.</p>
      </Section>
    );
  switch (id) {
    case "memory":
      return offered(["workspace_memory"], () => <MemorySection />);
    case "hooks":
      return offered(["workspace_hooks", "session_hooks"], () => <HooksSection workspace={has("workspace_hooks")} session={has("session_hooks")} />);
    case "language":
      return offered(["user_language_sync", "session_language"], () => <LanguageSection user={has("user_language_sync")} session={has("session_language")} />);
    case "skills":
      return offered(["workspace_skills"], () => <SkillsSection toggle={has("workspace_skill_settings_toggle")} />);
    case "mcp":
      return offered(["workspace_mcp"], () => <McpSection restart={has("workspace_mcp_restart")} manage={has("workspace_mcp_manage")} />);
    case "agents":
      return offered(["workspace_agents"], () => <AgentsSection generate={has("workspace_agent_generate")} />);
    case "extensions":
      return offered(["workspace_extensions"], () => <ExtensionsSection />);
  }
}
