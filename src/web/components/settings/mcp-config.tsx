/**
 * The user's MCP server settings (`/workspace/config/mcp/servers`): listed, added, edited and
 * removed. Environment and header values are secrets: typed into password fields and never
 * shown back; the daemon answers them redacted, and a value left empty on edit is sent back as
 * the daemon gave it (its redaction marker keeps the stored value).
 */
import { useState } from "preact/hooks";
import type { McpServerConfig } from "../../../client/index.ts";
import { client } from "../../app-state.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { attempt, LoadedView, OutcomeLine, useLoad, type Outcome } from "./shared.tsx";

export function McpConfig({ onChanged }: { onChanged: () => void }) {
  const [state, reload] = useLoad(() => client.mcpConfig());
  const [editing, setEditing] = useState<{ name: string; config: McpServerConfig } | "new" | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  async function remove(name: string) {
    if (!confirm(`Remove the MCP server ${visibleText(name)} from your settings?`)) return;
    const done = await attempt(() => client.removeMcpServer(name), () => `${visibleText(name)} removed.`, "Removing MCP servers", setOutcome);
    if (done) {
      reload();
      onChanged();
    }
  }
  function saved(text: string) {
    setEditing(null);
    setOutcome({ ok: true, text });
    reload();
    onChanged();
  }

  return (
    <div class="settings-block">
      <h3>Your server settings</h3>
      <LoadedView state={state} what="MCP server settings">
        {(body) => {
          const names = Object.keys(body.user);
          return names.length === 0 ? (
            <p class="empty">No servers in your settings.</p>
          ) : (
            <ul class="settings-list" aria-label="MCP server settings">
              {names.map((name) => (
                <li key={name} class="settings-row">
                  <span class="settings-name">
                    <Visible text={name} />
                  </span>
                  <span class="settings-meta">
                    <Visible text={summary(body.user[name]!)} />
                  </span>
                  <button type="button" onClick={() => setEditing({ name, config: body.user[name]! })}>
                    Edit<span class="visually-hidden"> {visibleText(name)}</span>
                  </button>
                  <button type="button" onClick={() => void remove(name)}>
                    Remove<span class="visually-hidden"> {visibleText(name)}</span>
                  </button>
                </li>
              ))}
            </ul>
          );
        }}
      </LoadedView>
      {editing === null ? (
        <button type="button" onClick={() => setEditing("new")}>
          Add server
        </button>
      ) : (
        <ServerForm key={editing === "new" ? "" : editing.name} initial={editing === "new" ? undefined : editing} onSaved={saved} onCancel={() => setEditing(null)} />
      )}
      <OutcomeLine outcome={outcome} />
    </div>
  );
}

const summary = (c: McpServerConfig) => (typeof c.command === "string" ? `stdio: ${[c.command, ...(c.args ?? [])].join(" ")}` : `remote: ${c.httpUrl ?? c.url ?? "?"}`);

/** One secret row: `sent` is what the daemon gave (kept when the field is left empty); null for a new row. */
type Secret = { group: "env" | "headers"; key: string; value: string; sent: string | null };

function secretsOf(c: McpServerConfig | undefined): Secret[] {
  const rows: Secret[] = [];
  for (const group of ["env", "headers"] as const) for (const [key, sent] of Object.entries(c?.[group] ?? {})) rows.push({ group, key, value: "", sent: String(sent) });
  return rows;
}

function ServerForm({ initial, onSaved, onCancel }: { initial: { name: string; config: McpServerConfig } | undefined; onSaved: (text: string) => void; onCancel: () => void }) {
  const base = initial?.config;
  const [name, setName] = useState(initial?.name ?? "");
  const [kind, setKind] = useState<"stdio" | "remote">(base && typeof base.command !== "string" ? "remote" : "stdio");
  const [command, setCommand] = useState(base?.command ?? "");
  const [args, setArgs] = useState((base?.args ?? []).join("\n"));
  const [url, setUrl] = useState(base?.httpUrl ?? base?.url ?? "");
  const [secrets, setSecrets] = useState<Secret[]>(secretsOf(base));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const update = (i: number, change: Partial<Secret>) => setSecrets(secrets.map((s, j) => (j === i ? { ...s, ...change } : s)));

  async function submit(e: Event) {
    e.preventDefault();
    const { command: _c, args: _a, url: _u, httpUrl: _h, env: _e, headers: _hd, ...rest } = base ?? {};
    const config: McpServerConfig = { ...rest };
    if (kind === "stdio") {
      config.command = command.trim();
      const list = args.split("\n").map((a) => a.trim()).filter(Boolean);
      if (list.length > 0) config.args = list;
    } else if (base?.httpUrl !== undefined || base?.url === undefined) config.httpUrl = url.trim();
    else config.url = url.trim();
    for (const group of ["env", "headers"] as const) {
      const rows = secrets.filter((s) => s.group === group && s.key.trim() !== "" && (s.value !== "" || s.sent !== null));
      if (rows.length > 0) config[group] = Object.fromEntries(rows.map((s) => [s.key.trim(), s.value !== "" ? s.value : s.sent!]));
    }
    setBusy(true);
    const done = await attempt(() => client.putMcpServer(name.trim(), config), (a) => `${visibleText(a.name)} saved${a.activation ? ` (${a.activation})` : ""}.`, "Saving MCP servers", setOutcome);
    setBusy(false);
    if (done) onSaved(`${visibleText(done.name)} saved${done.activation ? ` (${done.activation})` : ""}.`);
  }

  return (
    <form class="settings-form" aria-label={initial ? "Edit MCP server" : "Add MCP server"} onSubmit={(e) => void submit(e)}>
      <label class="settings-field">
        <span>Name</span>
        <input value={name} required readOnly={initial !== undefined} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="settings-field inline">
        <span>Transport</span>
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as "stdio" | "remote")}>
          <option value="stdio">Command (stdio)</option>
          <option value="remote">Remote (HTTP)</option>
        </select>
      </label>
      {kind === "stdio" ? (
        <>
          <label class="settings-field">
            <span>Command</span>
            <input value={command} required onInput={(e) => setCommand(e.currentTarget.value)} />
          </label>
          <label class="settings-field">
            <span>Arguments (one a line)</span>
            <textarea rows={3} value={args} onInput={(e) => setArgs(e.currentTarget.value)} />
          </label>
        </>
      ) : (
        <label class="settings-field">
          <span>URL</span>
          <input type="url" value={url} required onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
      )}
      <fieldset class="settings-secrets">
        <legend>Environment variables and headers (secret values)</legend>
        {secrets.map((s, i) => (
          <div key={i} class="settings-secret">
            <select aria-label={`Kind of secret ${i + 1}`} value={s.group} disabled={s.sent !== null} onChange={(e) => update(i, { group: e.currentTarget.value as Secret["group"] })}>
              <option value="env">Environment</option>
              <option value="headers">Header</option>
            </select>
            <input aria-label={`Name of secret ${i + 1}`} value={s.key} readOnly={s.sent !== null} onInput={(e) => update(i, { key: e.currentTarget.value })} />
            <input
              aria-label={`Value of secret ${i + 1}`}
              type="password"
              autocomplete="off"
              placeholder={s.sent !== null ? "stored; leave empty to keep" : ""}
              value={s.value}
              onInput={(e) => update(i, { value: e.currentTarget.value })}
            />
            <button type="button" onClick={() => setSecrets(secrets.filter((_, j) => j !== i))}>
              Remove<span class="visually-hidden"> secret {i + 1}</span>
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setSecrets([...secrets, { group: "env", key: "", value: "", sent: null }])}>
          Add a secret
        </button>
      </fieldset>
      <div class="settings-actions">
        <button type="submit" class="primary" disabled={busy}>
          Save server
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <OutcomeLine outcome={outcome} />
    </form>
  );
}
