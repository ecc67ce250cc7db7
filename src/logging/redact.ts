/**
 * Known secret values (the daemon's token, API keys in the environment) replaced before text from
 * elsewhere (a fault's message, an agent's stderr) reaches the log. Only exact values are replaced:
 * a pattern guess would both miss secrets and mangle ordinary text.
 */
export const REDACTED = "[redacted]";

export function redactSecrets(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) if (secret !== "") text = text.replaceAll(secret, REDACTED);
  return text;
}
