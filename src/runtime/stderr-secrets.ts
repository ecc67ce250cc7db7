/**
 * The values an agent's stderr is scrubbed of before it is logged or kept for error reports: the
 * daemon's token and every variable of the daemon's environment whose name marks it as a credential
 * (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`). Children inherit most of that environment, and
 * an agent that fails to start often prints the key it was given ("invalid key sk-…").
 * Values shorter than MIN_SECRET_CHARS are left alone: replacing `1` or `dummy` everywhere would
 * garble the log without protecting anything.
 */
const CREDENTIAL_NAME = /(_API_KEY|_TOKEN|_SECRET|_PASSWORD)$/i;
export const MIN_SECRET_CHARS = 8;

export function stderrSecrets(env: Readonly<Record<string, string | undefined>>, token: string | null): string[] {
  const values = new Set<string>();
  if (token !== null) values.add(token);
  for (const [name, value] of Object.entries(env)) if (value !== undefined && CREDENTIAL_NAME.test(name)) values.add(value);
  // Longest first, so a secret that contains another is replaced whole.
  return [...values].filter((v) => v.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}
