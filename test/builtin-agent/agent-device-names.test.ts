/**
 * Windows device names are ordinary names for the built-in agent on Linux and macOS (issue 22,
 * deliverable 9): it writes, reads, lists and globs `aux.c` and `con/` like any other file.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startAgent } from "./agent-client.ts";

describe.skipIf(process.platform === "win32")("the built-in agent and Windows device names", () => {
  test("aux.c and con/ round-trip through write_file, edit, read_file, list_directory and glob", async () => {
    await using a = await startAgent({ trusted: true });
    const { sessionId } = await a.newSession();
    await a.agent.request("session/set_mode", { sessionId, modeId: "auto-edit" });
    a.model.enqueue(
      {
        kind: "tools",
        calls: [
          { name: "write_file", args: { file_path: "aux.c", content: "int main;\n" } },
          { name: "write_file", args: { file_path: "con/nul.h", content: "#pragma once\n" } },
          { name: "edit", args: { file_path: "aux.c", old_string: "int", new_string: "long" } },
          { name: "read_file", args: { file_path: "aux.c" } },
          { name: "list_directory", args: { path: "con" } },
          { name: "glob", args: { pattern: "**/*.[ch]" } },
        ],
      },
      { kind: "text", text: "ok" },
    );
    await a.turn(sessionId, "go");
    const results = (a.model.requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results.slice(0, 3)).toEqual(["Created aux.c (10 bytes)", "Created con/nul.h (13 bytes)", "Edited aux.c"]);
    expect(results[3]).toContain("long main;");
    expect(results[4]).toContain("nul.h");
    expect(results[5]).toContain("aux.c");
    expect(results[5]).toContain("con/nul.h");
    expect(readFileSync(join(a.workspace, "aux.c"), "utf8")).toBe("long main;\n");
    expect(a.permissionRequests).toEqual([]);
  });
});
