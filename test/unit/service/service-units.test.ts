/**
 * The unit files `svc service install` writes: systemd quoting (every word read back as given,
 * specifiers and variable references escaped), and the launchd plist's XML shape (well formed, the
 * keys launchd needs, values escaped and read back, control characters refused).
 */
import { describe, expect, test } from "bun:test";
import { plistText, PlistValueError, readPlist } from "../../../src/service/launchd-plist.ts";
import { quoteWord, readUnit, splitWords, unitText, type UnitSpec } from "../../../src/service/systemd-unit.ts";

const HARD_WORDS = ["plain", "with space", 'quote " inside', "back\\slash", "100%", "$HOME", "${X}", "'single'", "tab\there", "line\nbreak", "bell\x07", "ünïcode", ";", "", "%%$$"];

const spec = (overrides: Partial<UnitSpec> = {}): UnitSpec => ({
  command: ["/opt/svc bin/svc"],
  serveArgs: ["--port=4170", "--workspace=/home/me/a b"],
  dataDir: "/home/me/.local/share/svc",
  tokenFile: "/home/me/.local/share/svc/service.token",
  path: "/usr/local/bin:/usr/bin:/bin",
  version: "1.2.3",
  ...overrides,
});

describe("systemd quoting", () => {
  test.each(HARD_WORDS.map((w) => [JSON.stringify(w), w]))("%s is read back as given, in ExecStart= and Environment=", (_name, word) => {
    expect(splitWords(quoteWord(word, true), true)).toEqual([word]);
    expect(splitWords(quoteWord(word, false), false)).toEqual([word]);
  });

  test("specifiers and variable references are escaped; no raw control character or quote is left", () => {
    expect(quoteWord("100% $HOME", true)).toBe('"100%% $$HOME"');
    expect(quoteWord("100% $HOME", false)).toBe('"100%% $HOME"');
    expect(quoteWord('a"b\\c\nd\x01', true)).toBe('"a\\"b\\\\c\\nd\\x01"');
  });

  test("the unit: its command line and environment are read back from the text", () => {
    const text = unitText(spec({ serveArgs: HARD_WORDS.map((w) => `--allow-origin=${w}`) }));
    const { exec, env } = readUnit(text);
    expect(exec).toEqual(["/opt/svc bin/svc", "serve", ...HARD_WORDS.map((w) => `--allow-origin=${w}`), "--token-file=/home/me/.local/share/svc/service.token"]);
    expect(env).toEqual({ SVC_HOME: "/home/me/.local/share/svc", PATH: "/usr/local/bin:/usr/bin:/bin" });
    // One line per key: a word with a newline cannot end the ExecStart= line.
    expect(text.split("\n").filter((l) => l.startsWith("ExecStart="))).toHaveLength(1);
  });
});

/** A minimal XML well-formedness check: a stack of open elements, every one closed in order. */
function wellFormed(xml: string): boolean {
  const body = xml.replace(/^<\?xml[^>]*\?>\s*<!DOCTYPE[^>]*>\s*/, "").replace(/<!--[\s\S]*?-->/g, "");
  const stack: string[] = [];
  for (const m of body.matchAll(/<(\/?)([A-Za-z]+)([^>]*?)(\/?)>|([<>])/g)) {
    if (m[5] !== undefined) return false;
    if (m[4] === "/") continue;
    if (m[1] === "/") {
      if (stack.pop() !== m[2]) return false;
    } else stack.push(m[2]!);
  }
  return stack.length === 0 && !/&(?!(amp|lt|gt|quot|apos);)/.test(body);
}

describe("launchd plist", () => {
  test("well formed, with the keys launchd needs; values escaped and read back as given", () => {
    const odd = `/Users/me/a & <b> "c" 'd'`;
    const text = plistText(spec({ command: [`${odd}/svc`], serveArgs: [`--workspace=${odd}`], dataDir: `${odd}/data` }));
    expect(wellFormed(text)).toBe(true);
    expect(wellFormed(text.replace("</array>", ""))).toBe(false);
    expect(text).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN"');
    for (const fragment of [
      "<key>Label</key>\n  <string>dev.svc.daemon</string>",
      "<key>RunAtLoad</key>\n  <true/>",
      "<key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>",
      "<key>Umask</key>\n  <integer>63</integer>",
      `<key>StandardErrorPath</key>\n  <string>/Users/me/a &amp; &lt;b&gt; &quot;c&quot; &apos;d&apos;/data/logs/service.log</string>`,
    ])
      expect(text).toContain(fragment);
    expect(readPlist(text)).toEqual({
      exec: [`${odd}/svc`, "serve", `--workspace=${odd}`, "--token-file=/home/me/.local/share/svc/service.token"],
      env: { SVC_HOME: `${odd}/data`, PATH: "/usr/local/bin:/usr/bin:/bin" },
    });
  });

  test("a control character, which XML 1.0 cannot carry, is refused", () => {
    expect(() => plistText(spec({ serveArgs: ["--workspace=/a\nb"] }))).toThrow(PlistValueError);
    expect(() => plistText(spec({ serveArgs: ["--workspace=/a\x01b"] }))).toThrow(PlistValueError);
  });
});
