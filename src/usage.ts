/** The usage texts of `svc --help` and `svc serve --help`: the flag table and nothing that runs. */
import { flagHelp } from "./config/flags.ts";
import { VERSION } from "./version.ts";

export const serveUsage = () => `usage: svc serve [flags]\n\nflags:\n${flagHelp()}\n`;

export const mainUsage = () =>
  `svc ${VERSION}: HTTP + SSE daemon for ACP coding agents\n\nusage:\n  svc serve [flags]   run the daemon (the default command)\n  svc discover [--workspace <dir>]\n                      print the running daemon for a workspace as JSON (exit 1: none)\n  svc trust <dir> | --revoke <dir> | --list\n                      trust a folder (svc trust --help)\n  svc --version [--verbose]\n                      print the version (--verbose: and the release signing key)\n\n${serveUsage()}`;
