/**
 * Agent and model text made safe to look at before a user decides on it: characters that change
 * how text reads without showing themselves are replaced, for display, by a visible mark
 * `⟨U+202E⟩`, so `\u202Egnp.exe` cannot pass for "exe.png" and nothing hides inside a command or
 * a path. Pure.
 *
 * Marked: bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C) and every other
 * format character (`\p{Cf}`: zero-width U+200B–U+200D, U+2060, U+FEFF, soft hyphen, tags…),
 * control characters (`\p{Cc}`), line and paragraph separators (U+2028/U+2029), lone surrogates,
 * and the blank-looking letters U+034F, U+115F, U+1160, U+3164, U+FFA0. In `multiline` text, tab,
 * line feed and a carriage return that ends a line stay as they are.
 *
 * With `blanks`, long runs of blank space that would push what follows out of sight (a command
 * of "npm test", 240 spaces and 40 line breaks, then "curl … | sh") are shown as one mark each too:
 * BLANK_RUN or more spaces and tabs as `⟨240 spaces⟩`, BLANK_LINES or more line breaks (with only
 * blanks between them) as `⟨40 line breaks⟩` and a line break.
 *
 * Consecutive marks form one segment, so the segments are never more than the text's visible
 * runs plus one; the caller bounds the text.
 */

/** A piece of display text: as is, or marks standing for hidden characters. */
export interface Segment {
  readonly text: string;
  /** The piece stands for hidden characters; `names` lists them (`U+202E RIGHT-TO-LEFT OVERRIDE`). */
  readonly hidden: boolean;
  readonly names?: string;
}

export interface VisibleOptions {
  /** Keep tabs, line feeds and line-ending carriage returns (commands, diffs, output). */
  multiline?: boolean;
  /** Mark long runs of blank space (see the header). */
  blanks?: boolean;
}

/** Spaces and tabs in a row from which a run is marked. */
export const BLANK_RUN = 8;
/** Line breaks in a row (blank lines between) from which they are marked. */
export const BLANK_LINES = 4;
const BLANKS = new RegExp(`[ \t]{${BLANK_RUN},}|(?:[ \t]*\r?\n){${BLANK_LINES},}`, "g");

const HIDDEN_CLASS = "\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\u034F\\u115F\\u1160\\u3164\\uFFA0";
const SINGLE_LINE = new RegExp(`[${HIDDEN_CLASS}]+`, "gu");
/** The same, but a tab, a line feed, or a carriage return before a line feed or at the end is kept. */
const MULTILINE = new RegExp(`(?:(?![\\t\\n]|\\r(?:\\n|$))[${HIDDEN_CLASS}])+`, "gu");

const NAMES: Record<number, string> = {
  0x061c: "ARABIC LETTER MARK",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
};

const codeOf = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** `⟨U+202E⟩` for one hidden character. */
export const markOf = (cp: number) => `⟨${codeOf(cp)}⟩`;

function pattern(options: VisibleOptions): RegExp {
  const re = options.multiline ? MULTILINE : SINGLE_LINE;
  re.lastIndex = 0;
  return re;
}

/** The text cut into plain pieces and marks (one plain segment when nothing is hidden). */
export function visibleSegments(text: string, options: VisibleOptions = {}): Segment[] {
  const re = pattern(options);
  const out: Segment[] = [];
  let at = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index), hidden: false });
    const points = [...m[0]].map((c) => c.codePointAt(0)!);
    out.push({ text: points.map(markOf).join(""), hidden: true, names: points.map((cp) => (NAMES[cp] ? `${codeOf(cp)} ${NAMES[cp]}` : codeOf(cp))).join(", ") });
    at = m.index + m[0].length;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), hidden: false });
  return options.blanks ? out.flatMap((s) => (s.hidden ? [s] : markBlanks(s.text))) : out;
}

/** A plain piece with its long blank runs as marks. */
function markBlanks(text: string): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  BLANKS.lastIndex = 0;
  for (let m = BLANKS.exec(text); m !== null; m = BLANKS.exec(text)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index), hidden: false });
    const breaks = m[0].split("\n").length - 1;
    const mark = breaks === 0 ? `⟨${m[0].length} spaces⟩` : `⟨${breaks} line breaks⟩`;
    out.push({ text: mark, hidden: true, names: breaks === 0 ? `${m[0].length} spaces and tabs` : `${breaks} line breaks with only blank space between` });
    if (breaks > 0) out.push({ text: "\n", hidden: false });
    at = m.index + m[0].length;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), hidden: false });
  return out;
}

/** The text with its hidden characters replaced by marks (for attributes such as accessible names). */
export function visibleText(text: string, options: VisibleOptions = {}): string {
  return text.replace(pattern(options), (run) => [...run].map((c) => markOf(c.codePointAt(0)!)).join(""));
}

/** How many lines `text` takes on screen with its long blank runs marked (`blanks`). */
export function shownLineCount(text: string): number {
  return markBlanks(text).reduce((lines, s) => lines + (s.hidden ? 0 : s.text.split("\n").length - 1), 1);
}
