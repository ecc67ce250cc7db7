/** The web UI's entry: mounts the app into `#app`. */
import { render } from "preact";
import { refreshSessions } from "./app-state.ts";
import { App } from "./components/app.tsx";

// Ask for the session list before the first render.
void refreshSessions();
render(<App />, document.getElementById("app")!);
