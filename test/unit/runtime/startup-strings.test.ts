import { describe, expect, test } from "bun:test";
import { blankSecrets } from "../../../src/runtime/startup-strings.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("blankSecrets", () => {
  test("blanks a whole argument, a NAME=value value and a --flag=value value that equal the secret", () => {
    const block = enc("svc\0serve\0--token\0hunter2\0--token=hunter2\0SVC_SERVER_TOKEN=hunter2\0");
    expect(blankSecrets(block, [enc("hunter2")])).toBe(3);
    expect(dec(block)).toBe("svc\0serve\0--token\0*******\0--token=*******\0SVC_SERVER_TOKEN=*******\0");
  });

  test("leaves strings that merely contain the secret alone, so no other variable is corrupted", () => {
    const text = "PATH=/x/hunter2/bin\0A=hunter22\0hunter2x\0B=xhunter2\0";
    const block = enc(text);
    expect(blankSecrets(block, [enc("hunter2")])).toBe(0);
    expect(dec(block)).toBe(text);
  });

  test("handles a block without a final NUL and an empty block", () => {
    const block = enc("A=1\0T=s");
    expect(blankSecrets(block, [enc("s")])).toBe(1);
    expect(dec(block)).toBe("A=1\0T=*");
    expect(blankSecrets(new Uint8Array(0), [enc("s")])).toBe(0);
  });
});

// The real thing, on a child process: what the kernel shows in /proc/<pid>/{environ,cmdline} changes.
test.if(process.platform === "linux")("blankStartupSecrets rewrites what /proc shows of this process", async () => {
  const script = `
    const { blankStartupSecrets } = await import(${JSON.stringify(import.meta.resolve("../../../src/runtime/startup-strings.ts"))});
    const n = blankStartupSecrets([process.env.PROBE_TOKEN]);
    const fs = require("node:fs");
    process.stdout.write(JSON.stringify({ n, environ: fs.readFileSync("/proc/self/environ", "latin1"), cmdline: fs.readFileSync("/proc/self/cmdline", "latin1"), env: process.env.PROBE_TOKEN }));
  `;
  const proc = Bun.spawn([process.execPath, "-e", script, "--", "--token", "s3cret-value"], { env: { PROBE_TOKEN: "s3cret-value", OTHER: "keep-me" }, stdout: "pipe" });
  const out = JSON.parse(await new Response(proc.stdout).text()) as { n: number; environ: string; cmdline: string; env: string };
  expect(await proc.exited).toBe(0);
  expect(out.n).toBe(2);
  expect(out.environ).not.toContain("s3cret-value");
  expect(out.environ).toContain("PROBE_TOKEN=************");
  expect(out.environ).toContain("OTHER=keep-me");
  expect(out.cmdline).not.toContain("s3cret-value");
  // The runtime's own copy, read at start, is untouched: the daemon keeps working with its token.
  expect(out.env).toBe("s3cret-value");
});
