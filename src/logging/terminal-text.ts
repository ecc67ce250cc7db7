/**
 * Text from outside the daemon (an agent's stderr, names and error messages it sends) on its way to
 * a terminal: log lines end up in one, where an escape sequence can recolour, retitle or rewrite the
 * screen and a control character can hide or forge a line. `stripAnsi` removes escape sequences
 * (what a child prints in colour reads plainly); `escapeControls` makes every remaining control
 * character visible as `\uXXXX`.
 */

/**
 * ANSI/ECMA-48 escape sequences: CSI (`ESC [ … final`, and the 8-bit CSI U+009B), OSC (`ESC ] …`
 * ended by BEL or ST), DCS/SOS/PM/APC strings (ended by ST), and the two-character escapes.
 */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[ -Z\\-~]/g;

/**
 * Characters a terminal acts on instead of showing: C0 controls (tab aside), DEL, C1 controls, the
 * Unicode line and paragraph separators, and the bidirectional overrides that reorder a line.
 */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const HAS_CONTROL = new RegExp(CONTROL.source);
/** What JSON.stringify leaves as is of CONTROL (it escapes C0 itself). */
const UNESCAPED_BY_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

export function hasControls(text: string): boolean {
  return HAS_CONTROL.test(text);
}

export function escapeControls(text: string): string {
  return text.replace(CONTROL, hex);
}

/** JSON text with no control character left raw: what JSON.stringify produced, with the rest escaped too (still valid JSON). */
export function terminalSafeJson(json: string): string {
  return json.replace(UNESCAPED_BY_JSON, hex);
}
