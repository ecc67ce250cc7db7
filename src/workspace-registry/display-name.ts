/**
 * A workspace's display name as the registration routes take it: a string, trimmed, at most
 * MAX_DISPLAY_NAME_LENGTH code points and MAX_DISPLAY_NAME_BYTES UTF-8 bytes, with no character a
 * reader cannot see for what it is; an empty one means none. Anything else is 400
 * `invalid_display_name`.
 *
 * The name is shown in clients beside paths and session lists, so beyond the C0 controls and DEL
 * the reference refuses, svc refuses the C1 controls and every invisible format character (Unicode
 * category Cf: bidi embeddings, overrides and isolates, zero-width spaces and joiners, the BOM, tag
 * characters), lone surrogates, and line and paragraph separators: each can make one name read as
 * another or reorder what is shown around it. Two uses of them are writing, and kept: a zero-width
 * joiner or non-joiner between two visible characters (emoji sequences such as 👩‍💻, Persian,
 * Sinhala, Devanagari) and the tag characters of a subdivision flag (🏴 + tags + cancel tag).
 *
 * It also refuses what shows as nothing or as something else: private-use and unassigned code
 * points, the default-ignorable characters (Hangul fillers, the combining grapheme joiner, Khmer
 * inherent vowels…) except variation selectors, which pick an emoji's or a glyph's form, and the
 * braille blank; combining marks with no letter under them (at the start or after a space) or more
 * than MAX_STACKED_MARKS in a row, which pile over the text around the name; and more than
 * MAX_BLANK_RUN spaces in a row, which push one part of a name away from the other.
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const MAX_DISPLAY_NAME_LENGTH = 256;
/** UTF-8 bytes: 256 three-byte characters (CJK) fit, 256 four-byte ones (emoji) do not. */
export const MAX_DISPLAY_NAME_BYTES = 768;

const invalid = (message: string) => new DaemonError(400, "invalid_display_name", message);

/** Combining marks in a row on one letter: enough for any script's stacks (Tibetan, Vietnamese, Indic). */
export const MAX_STACKED_MARKS = 6;

/**
 * C0 and C1 controls, DEL, format characters (Cf), private use, unassigned code points, line and
 * paragraph separators, the braille blank, lone surrogates, and default-ignorable characters other
 * than the variation selectors.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u2028\u2029\u2800]|\p{Cs}|(?![\uFE00-\uFE0F\u{E0100}-\u{E01EF}])\p{Default_Ignorable_Code_Point}/u;
/** Spaces of any width in a row. */
export const MAX_BLANK_RUN = 3;

/** The joiners and flag tags that are writing (see the header), taken out before HIDDEN looks. */
const WRITING = /(?<=[^\s\u200C\u200D])[\u200C\u200D](?=[^\s\u200C\u200D])|(?<=\u{1F3F4})[\u{E0020}-\u{E007E}]{1,12}\u{E007F}/gu;
/** A combining mark with no letter under it (at the start, after a space), or too many in a row. */
const STRAY_MARKS = new RegExp(`(?:^|\\s)\\p{M}|\\p{M}{${MAX_STACKED_MARKS + 1},}`, "u");
const BLANK_RUN = new RegExp(`\\s{${MAX_BLANK_RUN + 1},}`, "u");

/** The name to keep (null: none), or 400 `invalid_display_name`. */
export function normalizeDisplayName(value: unknown): string | null {
  if (typeof value !== "string") throw invalid("Workspace display name must be a string");
  const trimmed = value.trim();
  let length = 0;
  for (const _ of trimmed) if (++length > MAX_DISPLAY_NAME_LENGTH) throw invalid(`Workspace display name exceeds ${MAX_DISPLAY_NAME_LENGTH} characters`);
  if (Buffer.byteLength(trimmed, "utf8") > MAX_DISPLAY_NAME_BYTES) throw invalid(`Workspace display name exceeds ${MAX_DISPLAY_NAME_BYTES} bytes`);
  if (HIDDEN.test(trimmed.replace(WRITING, ""))) throw invalid("Workspace display name contains control, invisible or unassigned characters");
  if (STRAY_MARKS.test(trimmed)) throw invalid(`Workspace display name has a combining mark with no letter under it, or more than ${MAX_STACKED_MARKS} in a row`);
  if (BLANK_RUN.test(trimmed)) throw invalid(`Workspace display name has more than ${MAX_BLANK_RUN} spaces in a row`);
  return trimmed === "" ? null : trimmed;
}
