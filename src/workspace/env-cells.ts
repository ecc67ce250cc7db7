/**
 * `GET /workspace/env` cells, from the daemon's own environment snapshot (pure). Proxy values are
 * reduced to host:port (credentials and paths dropped); secret variables are reported only as
 * present or not, and no other variable is ever enumerated.
 */
import type { StatusCell } from "./status-cell.ts";

export const SECRET_NAMES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "DASHSCOPE_API_KEY", "OPENROUTER_API_KEY", "SVC_SERVER_TOKEN"];
const PROXY_NAMES = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"];
const SANDBOX_NAMES = ["SANDBOX", "SEATBELT_PROFILE"];

/** `scheme://user:pass@host:port/path` → `host:port`; unparsable values are withheld. */
export function proxyHostPort(value: string): string | null {
  try {
    const url = new URL(value.includes("://") ? value : `http://${value}`);
    return url.port ? `${url.hostname}:${url.port}` : url.hostname;
  } catch {
    return null;
  }
}

/**
 * `NO_PROXY` as a host list: each entry without a scheme or credentials (`user:pass@`, with or
 * without a scheme), so nothing but hosts, ports, domains and CIDR ranges is passed through.
 */
export function noProxyHosts(value: string): string {
  return value
    .split(",")
    .map((entry) => entry.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^.*@/, ""))
    .filter(Boolean)
    .join(",");
}

function lookup(env: Readonly<Record<string, string>>, name: string): string | undefined {
  return env[name] ?? env[name.toLowerCase()];
}

export function envCells(env: Readonly<Record<string, string>>, runtime: { name: string; version: string; platform: string; arch: string }): StatusCell[] {
  const cells: StatusCell[] = [
    { kind: "runtime", name: runtime.name, status: "ok", value: runtime.version },
    { kind: "platform", name: runtime.platform, status: "ok", value: runtime.arch },
  ];
  for (const name of SANDBOX_NAMES) {
    const present = lookup(env, name) !== undefined;
    cells.push({ kind: "sandbox", name, status: present ? "ok" : "disabled", present });
  }
  for (const name of PROXY_NAMES) {
    const raw = lookup(env, name);
    if (raw === undefined) {
      cells.push({ kind: "proxy", name, status: "disabled", present: false });
      continue;
    }
    const value = name === "NO_PROXY" ? noProxyHosts(raw) : proxyHostPort(raw);
    cells.push(value === null ? { kind: "proxy", name, status: "warning", present: true, hint: "value is not a URL" } : { kind: "proxy", name, status: "ok", present: true, value });
  }
  for (const name of SECRET_NAMES) cells.push({ kind: "env_var", name, status: env[name] ? "ok" : "disabled", present: Boolean(env[name]) });
  return cells;
}
