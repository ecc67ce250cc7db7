/** `svc agents install` did not complete; the message (one line) says why, and the previous install is intact. */
export class AgentInstallError extends Error {
  override readonly name = "AgentInstallError";
}
