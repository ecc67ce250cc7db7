/**
 * A small syntax highlighter (pure; a chunk of its own, loaded on demand by components/highlighted.tsx): a line is cut into
 * tokens (comment, string, number, keyword, plain) by one regular expression per language family.
 * Line-based on purpose: a diff or a streamed block is highlighted line by line, so a block comment
 * or string that spans lines shows plain after its first line. Bound: lines past
 * `MAX_HIGHLIGHT_CHARS` stay plain.
 */
export type TokenKind = "kw" | "str" | "num" | "com" | null;
export interface Token {
  text: string;
  kind: TokenKind;
}

export const MAX_HIGHLIGHT_CHARS = 2_000;

const JS = "abstract as async await break case catch class const continue debugger default delete do else enum export extends false finally for from function get if implements import in instanceof interface let new null of private protected public readonly return satisfies set static super switch this throw true try type typeof undefined var void while with yield";
const PY = "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self";
const SH = "if then else elif fi for while until do done case esac in function return export local readonly set unset echo cd exit true false";
const GO = "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false";
const RUST = "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while";
const C = "auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class public private protected new delete this true false null nullptr namespace template typename using virtual";
const JSON_KW = "true false null";

interface Family {
  words: Set<string>;
  /** Line comment starters. */
  comment: RegExp;
}

const family = (words: string, comment: RegExp): Family => ({ words: new Set(words.split(" ")), comment });
const SLASH = /\/\/.*$|\/\*.*?(?:\*\/|$)/;
const HASH = /#.*$/;
const FAMILIES: Record<string, Family> = {
  js: family(JS, SLASH),
  py: family(PY, HASH),
  sh: family(SH, HASH),
  go: family(GO, SLASH),
  rust: family(RUST, SLASH),
  c: family(C, SLASH),
  json: family(JSON_KW, /$^/),
};

const TOKENS = /("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi;

/** One line's tokens in `language` (a family from languages.ts' `languageOf`); plain when unknown or too long. */
export function highlightLine(line: string, language: string | undefined): Token[] {
  const fam = language ? FAMILIES[language] : undefined;
  if (!fam || line.length > MAX_HIGHLIGHT_CHARS) return [{ text: line, kind: null }];
  const out: Token[] = [];
  const plain = (text: string) => text && out.push({ text, kind: null });
  /** A comment starting in the plain text before `end` takes the rest of the line (strings are skipped whole, so a `//` inside one is not a comment). */
  const comment = (from: number, end: number): boolean => {
    const c = line.slice(from, end).search(fam.comment);
    if (c < 0) return false;
    plain(line.slice(from, from + c));
    out.push({ text: line.slice(from + c), kind: "com" });
    return true;
  };
  let at = 0;
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(line); m !== null; m = TOKENS.exec(line)) {
    const kind: TokenKind = m[1] ? "str" : m[2] ? "num" : fam.words.has(m[3]!) ? "kw" : null;
    if (kind === null) continue;
    if (comment(at, m.index)) return out;
    plain(line.slice(at, m.index));
    out.push({ text: m[0], kind });
    at = m.index + m[0].length;
  }
  if (!comment(at, line.length)) plain(line.slice(at));
  return out;
}
