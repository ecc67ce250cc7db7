/**
 * A configuration or startup problem that stops the daemon before it serves anything.
 * `svc serve` prints `svc: <message>` as one line on stderr and exits with code 2; to keep it one
 * line, control characters in the message (a newline in a path, say) are shown escaped.
 */
export class BootError extends Error {
  override readonly name: string = "BootError";
  constructor(message: string) {
    super(message.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
  }
}

/** An `--allow-origin` pattern that does not survive a round trip through URL origin parsing. */
export class InvalidAllowOriginPatternError extends BootError {
  override readonly name = "InvalidAllowOriginPatternError";
  constructor(readonly pattern: string, reason: string) {
    super(`InvalidAllowOriginPatternError: --allow-origin ${JSON.stringify(pattern)} ${reason}`);
  }
}
