/**
 * Where the browser tests and bench/web.ts find Debian's chromium, and how they start it: headless,
 * with nothing that reaches the network or the machine's own profile on its own.
 */
export const CHROMIUM = "/usr/bin/chromium";
export const LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
