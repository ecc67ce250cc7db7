/**
 * grep: lines matching a regular expression in the workspace's text files, built in (files found
 * with the glob walk and read through the contained reads, so ignored, linked and outside files are
 * never searched). Bounded by the caps below; ripgrep is not used yet.
 */
import { TEXT_READ_CAP_BYTES } from "../../workspace/file-limits.ts";
import { capForModel, stringArg, ToolInputError, type AgentTool } from "./tool.ts";

/** Files searched per call; the rest are skipped and the result says so. */
const FILES_CAP = 5000;
/** Matching lines returned. */
const MATCHES_CAP = 200;
/** Longest pattern accepted, and longest line shown (longer lines are cut). */
const MAX_PATTERN_CHARS = 1000;
const MAX_LINE_CHARS = 500;

export const grepTool: AgentTool = {
  name: "grep",
  description: `Search workspace text files for a regular expression (JavaScript syntax). Optional \`glob\` limits the files (default all). Returns path:line: text, at most ${MATCHES_CAP} lines.`,
  parameters: { type: "object", properties: { pattern: { type: "string" }, glob: { type: "string" }, path: { type: "string" } }, required: ["pattern"] },
  kind: "search",
  toolClass: "read",
  async prepare(args, { files }) {
    const pattern = stringArg(args, "pattern");
    const glob = stringArg(args, "glob", true) ?? "**/*";
    const cwd = stringArg(args, "path", true);
    if (pattern.length > MAX_PATTERN_CHARS) throw new ToolInputError(`pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    let regex: RegExp;
    try {
      regex = new RegExp(pattern);
    } catch (err) {
      throw new ToolInputError(`pattern is not a valid regular expression: ${(err as Error).message}`);
    }
    return {
      title: `Grep ${pattern}`,
      async run({ signal }) {
        const found = await files.glob({ pattern: glob, ...(cwd ? { cwd } : {}), maxResults: FILES_CAP, includeIgnored: false });
        const prefix = found.cwd === "" ? "" : `${found.cwd}/`;
        const lines: string[] = [];
        for (const match of found.matches) {
          if (signal.aborted || lines.length >= MATCHES_CAP) break;
          const file = await files.readText(prefix + match, { maxBytes: TEXT_READ_CAP_BYTES }).catch(() => null);
          if (!file) continue; // binary, unreadable or gone meanwhile
          file.content.split("\n").forEach((text, i) => {
            if (lines.length < MATCHES_CAP && regex.test(text)) lines.push(`${prefix}${match}:${i + 1}: ${text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text}`);
          });
        }
        if (lines.length >= MATCHES_CAP) lines.push(`[stopped at ${MATCHES_CAP} matches]`);
        if (found.truncated) lines.push(`[only the first ${FILES_CAP} files were searched]`);
        return { text: capForModel(lines.join("\n") || "(no matches)"), rawOutput: { matches: Math.min(lines.length, MATCHES_CAP) } };
      },
    };
  },
};
