/**
 * A configuration or startup problem that stops the daemon before it serves anything.
 * `svc serve` prints `svc: <message>` as one line on stderr and exits with code 2.
 */
export class BootError extends Error {
  override readonly name: string = "BootError";
}

/** An `--allow-origin` pattern that does not survive a round trip through URL origin parsing. */
export class InvalidAllowOriginPatternError extends BootError {
  override readonly name = "InvalidAllowOriginPatternError";
  constructor(readonly pattern: string, reason: string) {
    super(`InvalidAllowOriginPatternError: --allow-origin ${JSON.stringify(pattern)} ${reason}`);
  }
}
