/** The web UI's entry: applies the theme, installs the keyboard shortcuts, mounts the app into `#app`. */
import { render } from "preact";
import { refreshSessions } from "./app-state.ts";
import { App } from "./components/app.tsx";
import { applyStoredTheme } from "./components/theme-toggle.tsx";
import { installShortcuts } from "./shortcuts.ts";

applyStoredTheme();
installShortcuts();
// Ask for the session list before the first render.
void refreshSessions();
render(<App />, document.getElementById("app")!);
