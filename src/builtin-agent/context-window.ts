/**
 * How full a model's context window is, in tokens. No tokenizer: svc talks to OpenAI-compatible
 * servers of any model family, Anthropic and Google, whose tokenizers differ (and are not all
 * published), so tokens are a calibrated estimate: the request's bytes (system prompt, tool specs
 * and history as JSON) over a bytes-per-token ratio that starts at DEFAULT_BYTES_PER_TOKEN and
 * follows the model's own count of each request's input (usage), kept within
 * [MIN_BYTES_PER_TOKEN, MAX_BYTES_PER_TOKEN] so a provider that reports only part of the input (a
 * cache discount) or nothing cannot make a full window look empty.
 *
 * Thresholds of a window: a reply's room (`reserve`: the output limit, at most a quarter of the
 * window) is kept free; of the rest (`effective`), the history is compacted past COMPACT_AT, down
 * to recent exchanges worth at most KEEP_RECENT of it (`compaction.ts`). `warn` is at WARN_AT.
 */
export const DEFAULT_BYTES_PER_TOKEN = 3.5;
export const MIN_BYTES_PER_TOKEN = 1.5;
export const MAX_BYTES_PER_TOKEN = 6;
/** Weight of the newest measurement in the running ratio. */
const CALIBRATION_WEIGHT = 0.5;
export const WARN_AT = 0.6;
export const COMPACT_AT = 0.7;
export const KEEP_RECENT = 0.3;

export interface WindowThresholds {
  readonly window: number;
  readonly reserve: number;
  readonly effective: number;
  readonly warn: number;
  readonly auto: number;
  readonly hard: number;
}

export function thresholds(contextLimit: number, maxOutputTokens: number): WindowThresholds {
  const reserve = Math.min(maxOutputTokens, Math.floor(contextLimit / 4));
  const effective = contextLimit - reserve;
  return { window: contextLimit, reserve, effective, warn: Math.floor(effective * WARN_AT), auto: Math.floor(effective * COMPACT_AT), hard: effective };
}

/** One session's estimate: bytes to tokens, calibrated by what the model counted. */
export class TokenMeter {
  bytesPerToken = DEFAULT_BYTES_PER_TOKEN;
  /** Whether a model count has calibrated the ratio yet. */
  calibrated = false;

  estimate(bytes: number): number {
    return Math.ceil(bytes / this.bytesPerToken);
  }

  /** A request of `bytes` that the model counted as `inputTokens` (ignored when it counted none). */
  calibrate(bytes: number, inputTokens: number): void {
    if (!(inputTokens > 0) || bytes <= 0) return;
    const measured = Math.min(MAX_BYTES_PER_TOKEN, Math.max(MIN_BYTES_PER_TOKEN, bytes / inputTokens));
    this.bytesPerToken = this.calibrated ? this.bytesPerToken * (1 - CALIBRATION_WEIGHT) + measured * CALIBRATION_WEIGHT : measured;
    this.calibrated = true;
  }
}
