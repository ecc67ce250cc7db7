/**
 * The bearer token in the browser: a `#token=<t>` fragment is read once at start, kept in
 * `sessionStorage` (key `svc.token`) and removed from the address bar, so it never reaches the
 * server in a URL, a Referer or the history. A token holding `&` or `%` must be URL-encoded in the
 * fragment (see `tokenFromFragment`).
 */
import { tokenFromFragment } from "./fragment.ts";

export const TOKEN_KEY = "svc.token";

/** Takes a token from the fragment (if any) into sessionStorage; returns the stored token. */
export function adoptToken(): string | undefined {
  const { present, token } = tokenFromFragment(location.hash);
  if (present) {
    // First out of the address bar (and the history), whatever the value.
    history.replaceState(null, "", `${location.pathname}${location.search}#/`);
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}
