/**
 * grep: lines matching a regular expression in the workspace's text files. The files are found by
 * the workspace's glob walk (so ignored, linked and outside files are never searched, whichever
 * engine matches); the matching runs off the agent's event loop, so no pattern can stall the other
 * sessions: the user's ripgrep when the shell PATH has one outside the workspace (linear-time
 * regex, see `grep-ripgrep.ts`), else a Worker with a time budget (JavaScript regex, see
 * `grep-worker.ts`). Bounded by the caps below.
 */
import { TEXT_READ_CAP_BYTES } from "../../workspace/file-limits.ts";
import { ripgrepPatternError, ripgrepSearch, type GrepHit } from "./grep-ripgrep.ts";
import { RegexWorker } from "./grep-worker.ts";
import { capForModel, stringArg, ToolInputError, type AgentTool, type ToolContext } from "./tool.ts";

/** Files searched per call; the rest are skipped and the result says so. */
const FILES_CAP = 5000;
/** Matching lines returned. */
const MATCHES_CAP = 200;
/** Longest pattern accepted, and longest line shown (longer lines are cut). */
const MAX_PATTERN_CHARS = 1000;
const MAX_LINE_CHARS = 500;

/** The built-in engine: each file read through the contained reads and matched in the Worker. */
async function builtinSearch(context: ToolContext, pattern: string, files: readonly string[]): Promise<GrepHit[]> {
  const worker = new RegexWorker(pattern, context.signal);
  try {
    const hits: GrepHit[] = [];
    for (const path of files) {
      if (hits.length >= MATCHES_CAP) break;
      const file = await context.files.readText(path, { maxBytes: TEXT_READ_CAP_BYTES }).catch(() => null);
      if (!file) continue; // binary, unreadable or gone meanwhile
      for (const hit of await worker.search(file.content, MATCHES_CAP - hits.length)) hits.push({ ...hit, path });
    }
    return hits;
  } finally {
    worker.close();
  }
}

export const grepTool: AgentTool = {
  name: "grep",
  description: `Search workspace text files for a regular expression (ripgrep syntax when available, else JavaScript; avoid lookaround and backreferences). Optional \`glob\` limits the files (default all). Returns path:line: text, at most ${MATCHES_CAP} lines.`,
  parameters: { type: "object", properties: { pattern: { type: "string" }, glob: { type: "string" }, path: { type: "string" } }, required: ["pattern"] },
  kind: "search",
  toolClass: "read",
  async prepare(args, { files, shell, ripgrep }) {
    const pattern = stringArg(args, "pattern");
    const glob = stringArg(args, "glob", true) ?? "**/*";
    const cwd = stringArg(args, "path", true);
    if (pattern.length > MAX_PATTERN_CHARS) throw new ToolInputError(`pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    if (ripgrep === null) {
      try {
        new RegExp(pattern); // compiling is linear; only matching is moved off the loop
      } catch (err) {
        throw new ToolInputError(`pattern is not a valid regular expression: ${(err as Error).message}`);
      }
    } else {
      const error = await ripgrepPatternError(ripgrep, shell.env, pattern);
      if (error !== null) throw new ToolInputError(`pattern is not a valid regular expression for ripgrep: ${error}`);
    }
    return {
      title: `Grep ${pattern}`,
      async run(context) {
        const found = await files.glob({ pattern: glob, ...(cwd ? { cwd } : {}), maxResults: FILES_CAP, includeIgnored: false });
        const prefix = found.cwd === "" ? "" : `${found.cwd}/`;
        const paths = found.matches.map((m) => prefix + m);
        // A stopped search (time budget, cancel, bad ripgrep pattern) throws: the call fails with its reason.
        const hits = ripgrep === null ? await builtinSearch(context, pattern, paths) : await ripgrepSearch(ripgrep, files.root, context.shell.env, pattern, paths, MATCHES_CAP, context.signal);
        const lines = hits.map((h) => `${h.path}:${h.line}: ${h.text.length > MAX_LINE_CHARS ? `${h.text.slice(0, MAX_LINE_CHARS)}…` : h.text}`);
        if (hits.length >= MATCHES_CAP) lines.push(`[stopped at ${MATCHES_CAP} matches]`);
        if (found.truncated) lines.push(`[only the first ${FILES_CAP} files were searched]`);
        return { text: capForModel(lines.join("\n") || "(no matches)"), rawOutput: { matches: hits.length, engine: ripgrep === null ? "builtin" : "ripgrep" } };
      },
    };
  },
};
