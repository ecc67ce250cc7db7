/**
 * The bearer token in the browser: a `#token=<t>` fragment is read once at start, kept in
 * `sessionStorage` (key `svc.token`) and removed from the address bar, so it never reaches the
 * server in a URL, a Referer or the history.
 */
export const TOKEN_KEY = "svc.token";

/** Takes a token from the fragment (if any) into sessionStorage; returns the stored token. */
export function adoptToken(): string | undefined {
  const match = /(?:^#|[#&])token=([^&]*)/.exec(location.hash);
  if (match) {
    const token = decodeURIComponent(match[1] ?? "");
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, "", `${location.pathname}${location.search}#/`);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}
