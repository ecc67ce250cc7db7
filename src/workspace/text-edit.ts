/**
 * The single-replacement edit of `/file/edit`, as a pure function over the decoded text.
 * `oldText` must occur exactly once. In a CRLF file, an `oldText` written with bare LF line breaks
 * (as clients and agents usually send) is matched in its CRLF form, and `newText` is converted too.
 */
import type { LineEnding } from "./text-codec.ts";

export type EditOutcome =
  | { readonly kind: "edited"; readonly text: string }
  | { readonly kind: "not_found" }
  | { readonly kind: "ambiguous"; readonly occurrences: number };

function occurrences(text: string, search: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) at.push(i);
  return at;
}

export function applySingleEdit(text: string, oldText: string, newText: string, lineEnding: LineEnding): EditOutcome {
  let search = oldText;
  let replacement = newText;
  let found = occurrences(text, search);
  if (found.length === 0 && lineEnding === "crlf" && oldText.includes("\n") && !oldText.includes("\r\n")) {
    search = oldText.replaceAll("\n", "\r\n");
    replacement = newText.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
    found = occurrences(text, search);
  }
  if (found.length === 0) return { kind: "not_found" };
  if (found.length > 1) return { kind: "ambiguous", occurrences: found.length };
  const at = found[0]!;
  return { kind: "edited", text: text.slice(0, at) + replacement + text.slice(at + search.length) };
}
