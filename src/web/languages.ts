/**
 * Which language family (of highlight.ts) a fenced block's info string or a file name is in. Kept
 * apart from the highlighter so the page knows whether to load it without loading it.
 */
const ALIASES: Record<string, string> = {
  js: "js", jsx: "js", mjs: "js", cjs: "js", ts: "js", tsx: "js", mts: "js", javascript: "js", typescript: "js", java: "c", kt: "c", kotlin: "c", cs: "c", swift: "c",
  py: "py", python: "py", rb: "py", ruby: "py", toml: "py", yaml: "py", yml: "py",
  sh: "sh", bash: "sh", zsh: "sh", shell: "sh", console: "sh",
  go: "go", golang: "go", rs: "rust", rust: "rust",
  c: "c", h: "c", cc: "c", cpp: "c", hpp: "c", "c++": "c",
  json: "json", jsonc: "json",
};

/** The language family of a fenced block's info string or a file name (by extension), if known. */
export function languageOf(nameOrInfo: string): string | undefined {
  const key = nameOrInfo.trim().toLowerCase();
  const ext = key.includes(".") ? key.slice(key.lastIndexOf(".") + 1) : key;
  return ALIASES[ext] ?? ALIASES[key];
}

