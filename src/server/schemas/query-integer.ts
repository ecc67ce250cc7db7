/**
 * An integer query field of the daemon routes, answering the daemon error body when it is not one.
 * Only plain decimal digits are taken: not `t.Integer`, which reads the string with `+value` and so
 * also takes `1e3`, `0x10`, ` 5`, `1.0`. A spelling outside the pattern and a value outside
 * [minimum, maximum] are the same 400 (`error`), so a client sees one message for both.
 */
import { t } from "elysia";
import type { DaemonError } from "../../errors/daemon-error.ts";

/** Plain decimal digits, at most as many as Number.MAX_SAFE_INTEGER has (so the number read is exact). */
const DECIMAL_DIGITS = "^[0-9]{1,16}$";

export function queryInteger(minimum: number, maximum: number, description: string, error: () => DaemonError) {
  return t
    .Transform(t.String({ pattern: DECIMAL_DIGITS, description: `${description}; decimal digits, ${minimum} to ${maximum}`, error: () => error().body() }))
    .Decode((digits) => {
      const n = Number(digits);
      if (!(n >= minimum && n <= maximum)) throw error();
      return n;
    })
    .Encode(String);
}
