/**
 * Light, dark, or the system's choice (the default), kept in `localStorage`: the choice sets
 * `data-theme` on the root, which the stylesheet's variables follow.
 */
import { useState } from "preact/hooks";

const KEY = "svc.theme";
const THEMES = ["system", "light", "dark"] as const;
type Theme = (typeof THEMES)[number];
const LABEL: Record<Theme, string> = { system: "Theme: system", light: "Theme: light", dark: "Theme: dark" };

function stored(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return (THEMES as readonly string[]).includes(t ?? "") ? (t as Theme) : "system";
  } catch {
    return "system";
  }
}

/** Applies the stored theme (before the first render, so the page does not flash the other one). */
export function applyStoredTheme(): void {
  apply(stored());
}

function apply(theme: Theme): void {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function ThemeToggle() {
  const [theme, setTheme] = useState(stored);
  const next = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
  return (
    <button
      type="button"
      class="quiet theme-toggle"
      title={`${LABEL[theme]} (click for ${next})`}
      onClick={() => {
        apply(next);
        try {
          localStorage.setItem(KEY, next);
        } catch {
          // Not kept: the choice lasts for this page.
        }
        setTheme(next);
      }}
    >
      {LABEL[theme]}
    </button>
  );
}
