/**
 * The service's token file, `<data dir>/service.token` (what the unit's `--token-file` names):
 * created 0600 with a random 256-bit token (base64url) or the one SVC_SERVER_TOKEN gives, written
 * atomically (a private temp file, fsynced, renamed); an existing file that `svc serve` would accept
 * is kept (clients holding the token keep working across re-installs), one it would refuse is
 * reported and left alone (unless SVC_SERVER_TOKEN gives a token to put in its place). The token is
 * never printed.
 */
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { writeAtomically } from "./atomic-write.ts";
import { BootError } from "../config/boot-error.ts";
import { readTokenFile } from "../config/token-file.ts";

export type TokenOutcome = "created" | "replaced" | "kept";

export class TokenFileError extends Error {}


/** Makes sure `path` holds a token `svc serve --token-file` accepts; `given` (already checked) replaces the current one. */
export function ensureTokenFile(path: string, given: string | null): TokenOutcome {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const exists = lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  if (exists && given === null) {
    try {
      readTokenFile(path);
      return "kept";
    } catch (err) {
      if (!(err instanceof BootError)) throw err;
      throw new TokenFileError(`token file ${err.message.replace(/^--token-file /, "")}; fix or remove it, or give a new token with SVC_SERVER_TOKEN`);
    }
  }
  writeAtomically(path, `${given ?? randomBytes(32).toString("base64url")}\n`, 0o600);
  return exists ? "replaced" : "created";
}
