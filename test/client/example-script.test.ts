/**
 * The README's example (`examples/client-prompt.ts`) runs against a real daemon under Bun, and
 * under Node: directly with type stripping on Node 22.6+, else (Node 20 here) as a Bun bundle
 * targeting Node, which still runs the SDK on Node's own fetch, streams and TextDecoder.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const EXAMPLE = join(REPO_ROOT, "examples", "client-prompt.ts");
const NODE = Bun.which("node");

/** Runs the example; `stdin` is written to it and closed (none: it reads an empty stdin). */
async function run(cmd: string[], env: Record<string, string>, stdin = ""): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  try {
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, out, err };
  } finally {
    proc.kill();
  }
}

function nodeMajorMinor(): [number, number] {
  const v = Bun.spawnSync([NODE!, "--version"]).stdout.toString().trim().replace(/^v/, "").split(".");
  return [Number(v[0]), Number(v[1])];
}

describe("examples/client-prompt.ts", () => {
  test("under Bun: prompts, streams the reply, ends with the stop reason", async () => {
    await using d = await fakeAgentDaemon(["--token", "example-token"]);
    const r = await run([process.execPath, EXAMPLE, "hello from the example"], { SVC_URL: d.url, SVC_SERVER_TOKEN: "example-token" });
    expect(r.err).toBe("");
    expect(r.out).toBe("hello from the example\n[end_turn]\n");
    expect(r.code).toBe(0);
  });

  test("a daemon error is printed with its status and code, exit code 1", async () => {
    await using d = await fakeAgentDaemon(["--token", "example-token"]);
    const r = await run([process.execPath, EXAMPLE, "hi"], { SVC_URL: d.url, SVC_SERVER_TOKEN: "wrong" });
    expect(r.err).toContain("daemon error 401");
    expect(r.code).toBe(1);
  });

  test("prints a tool call as it starts and ends", async () => {
    await using d = await fakeAgentDaemon();
    const r = await run([process.execPath, EXAMPLE, "@tool Build the thing"], { SVC_URL: d.url });
    expect(r.err).toBe("");
    expect(r.out).toContain("[tool] Build the thing (other): pending\n");
    expect(r.out).toContain("[tool] Build the thing: completed\n");
    expect(r.out).toEndWith("[end_turn]\n");
    expect(r.code).toBe(0);
  });

  test("a permission request is listed and answered from stdin", async () => {
    await using d = await fakeAgentDaemon();
    const r = await run([process.execPath, EXAMPLE, "@permission"], { SVC_URL: d.url }, "x\n2\n");
    expect(r.err).toBe("");
    expect(r.out).toContain("[permission] Fake edit\n");
    expect(r.out).toMatch(/ {2}2\) .* \(allow_once\)\n/);
    // A line that is no option is asked again.
    expect(r.out.split("answer [1-3, c to cancel]: ")).toHaveLength(3);
    expect(r.out).toContain("permission: selected proceed_once");
    expect(r.code).toBe(0);
  });

  test("with stdin at its end, the request is cancelled, not left waiting", async () => {
    await using d = await fakeAgentDaemon();
    const r = await run([process.execPath, EXAMPLE, "@permission"], { SVC_URL: d.url });
    expect(r.out).toContain("no answer on stdin: cancelled");
    expect(r.out).toContain("permission: cancelled");
    expect(r.code).toBe(0);
  });

  test.each([
    ["--approve", "proceed_always"],
    ["--deny", "cancel"],
  ])("%s answers without asking", async (flag, optionId) => {
    await using d = await fakeAgentDaemon();
    const r = await run([process.execPath, EXAMPLE, flag, "@permission"], { SVC_URL: d.url });
    expect(r.out).not.toContain("answer [");
    expect(r.out).toContain(`permission: selected ${optionId}`);
    expect(r.code).toBe(0);
  });

  test.skipIf(NODE === null)("under Node", async () => {
    await using d = await fakeAgentDaemon();
    const [major, minor] = nodeMajorMinor();
    let cmd: string[];
    await using out = tempDir("svc-example-");
    if (major > 22 || (major === 22 && minor >= 6)) cmd = [NODE!, "--experimental-strip-types", "--no-warnings", EXAMPLE];
    else {
      const built = await Bun.build({ entrypoints: [EXAMPLE], target: "node", outdir: out.path, naming: "example.mjs" });
      expect(built.success).toBe(true);
      cmd = [NODE!, join(out.path, "example.mjs")];
    }
    const r = await run([...cmd, "hello from node"], { SVC_URL: d.url });
    expect(r.out).toBe("hello from node\n[end_turn]\n");
    expect(r.code).toBe(0);
  });
});
