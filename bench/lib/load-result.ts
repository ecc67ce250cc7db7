/** What one fixed-duration load run measured, whichever generator ran it. */
export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Non-2xx answers plus socket errors (connect, read, write, timeout). */
  readonly errors: number;
}

export interface LoadGenerator {
  /** One line for the report: which tool, with which settings. */
  readonly description: string;
  readonly fallback: boolean;
  run(url: string, concurrency: number, durationSeconds: number): Promise<LoadResult>;
}
