/** The read-only file tools: read_file, list_directory, glob. They never ask in any mode. */
import { MAX_BYTES_WINDOW, MAX_LINE_LIMIT } from "../../workspace/file-limits.ts";
import { capForModel, intArg, locate, stringArg, type AgentTool } from "./tool.ts";

/** Glob matches returned to the model. */
const GLOB_RESULTS_CAP = 500;

export const readFileTool: AgentTool = {
  name: "read_file",
  description: "Read a text file of the workspace. Optional 1-based `offset` line and `limit` lines for large files.",
  parameters: {
    type: "object",
    properties: { file_path: { type: "string", description: "Path inside the workspace (relative or absolute)" }, offset: { type: "integer" }, limit: { type: "integer" } },
    required: ["file_path"],
  },
  kind: "read",
  toolClass: "read",
  async prepare(args, { files }) {
    const path = stringArg(args, "file_path");
    const line = intArg(args, "offset", 1, Number.MAX_SAFE_INTEGER);
    const limit = intArg(args, "limit", 1, MAX_LINE_LIMIT);
    return {
      title: `Read ${path}`,
      locations: [{ path: locate(files, path), ...(line ? { line } : {}) }],
      async run() {
        const file = await files.readText(path, { maxBytes: MAX_BYTES_WINDOW, ...(line ? { line } : {}), ...(limit ? { limit } : {}) });
        const note = file.truncated || file.hasMore ? `\n[file continues: ${file.sizeBytes} bytes in all; read further with offset/limit]` : "";
        return { text: capForModel(file.content + note), rawOutput: { path: file.path, sizeBytes: file.sizeBytes, truncated: file.truncated } };
      },
    };
  },
};

export const listDirectoryTool: AgentTool = {
  name: "list_directory",
  description: "List the entries of a workspace directory (ignored entries left out).",
  parameters: { type: "object", properties: { path: { type: "string", description: "Directory inside the workspace; '.' for the root" } }, required: ["path"] },
  kind: "read",
  toolClass: "read",
  async prepare(args, { files }) {
    const path = stringArg(args, "path");
    return {
      title: `List ${path}`,
      async run() {
        const list = await files.list(path, false);
        const lines = list.entries.map((e) => (e.kind === "directory" ? `${e.name}/` : e.name));
        if (list.truncated) lines.push("[listing truncated]");
        return { text: capForModel(lines.join("\n") || "(empty directory)"), rawOutput: { count: list.entries.length, truncated: list.truncated } };
      },
    };
  },
};

export const globTool: AgentTool = {
  name: "glob",
  description: "Find workspace files whose path matches a glob pattern (e.g. `src/**/*.ts`).",
  parameters: { type: "object", properties: { pattern: { type: "string" }, path: { type: "string", description: "Directory the pattern is relative to" } }, required: ["pattern"] },
  kind: "search",
  toolClass: "read",
  async prepare(args, { files }) {
    const pattern = stringArg(args, "pattern");
    const cwd = stringArg(args, "path", true);
    return {
      title: `Glob ${pattern}`,
      async run() {
        const found = await files.glob({ pattern, ...(cwd ? { cwd } : {}), maxResults: GLOB_RESULTS_CAP, includeIgnored: false });
        const text = found.matches.join("\n") + (found.truncated ? `\n[more than ${GLOB_RESULTS_CAP} matches; narrow the pattern]` : "");
        return { text: capForModel(text || "(no matches)"), rawOutput: { count: found.count, truncated: found.truncated } };
      },
    };
  },
};
