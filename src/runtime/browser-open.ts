/**
 * `svc serve --open`: hands the web UI's address to the platform's opener, found on PATH:
 * `xdg-open` (Linux and the BSDs), `open` (macOS), `rundll32 url.dll,FileProtocolHandler` (Windows;
 * unlike `cmd /c start` it passes the URL as it is, with no shell reading `%` or `&` in it).
 *
 * The address carries no token, even in its fragment: the opener's and the browser's command lines
 * are readable by every process of the machine (`/proc/<pid>/cmdline`), an agent's commands included,
 * and a browser keeps its own for its whole life. With the token, an agent could vote on its own
 * permission requests. On a daemon with a token the UI asks for it (its token prompt).
 *
 * The opener gets the environment it is given (the caller leaves secrets out: a browser has no use
 * for model keys) and stays in the daemon's session: the daemon is a child subreaper, and a process
 * of another session it adopts is taken for an agent's orphan and ended with the agent's family
 * (`agent-family.ts`). Nothing waits for it: an opener that is missing or fails is reported through
 * `onProblem` and the daemon serves on.
 */
import { spawn } from "node:child_process";
import { urlHost } from "../config/net.ts";

/** The opener for a platform: command and the arguments before the URL. */
export function openerFor(platform: NodeJS.Platform): { command: string; args: readonly string[] } {
  if (platform === "darwin") return { command: "open", args: [] };
  if (platform === "win32") return { command: "rundll32", args: ["url.dll,FileProtocolHandler"] };
  return { command: "xdg-open", args: [] };
}

/** The UI's address as a browser on this machine reaches it: a wildcard bind address becomes loopback. */
export function uiOpenUrl(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  return `http://${urlHost(host)}:${port}/`;
}

export interface OpenOptions {
  readonly platform: NodeJS.Platform;
  /** The opener's environment (PATH finds it). */
  readonly env: Readonly<Record<string, string>>;
  /** Called at most once, with what went wrong, when the opener is missing or fails. */
  readonly onProblem: (problem: string) => void;
}

/** Starts the opener on `url` and returns at once. */
export function openInBrowser(url: string, options: OpenOptions): void {
  const { command, args } = openerFor(options.platform);
  let reported = false;
  const report = (problem: string) => {
    if (reported) return;
    reported = true;
    options.onProblem(problem);
  };
  try {
    const child = spawn(command, [...args, url], { env: { ...options.env }, stdio: "ignore", windowsHide: true });
    child.on("error", (err: NodeJS.ErrnoException) => report(err.code === "ENOENT" ? `${command} was not found on PATH` : `${command} could not be started (${err.code ?? err.message})`));
    child.on("exit", (code, signal) => {
      if (code !== 0) report(`${command} ${code === null ? `was ended by ${signal}` : `exited with status ${code}`}`);
    });
    child.unref();
  } catch (err) {
    report(`${command} could not be started (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
