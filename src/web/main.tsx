/** The web UI's entry: mounts the app into `#app`. */
import { render } from "preact";
import { App } from "./components/app.tsx";

render(<App />, document.getElementById("app")!);
