/**
 * The public half of the key that signs svc's releases (minisign format, `src/release/minisign.ts`);
 * `install.sh` carries the same line. A release signed with another key (a test's throwaway key)
 * stamps its own here through build.ts's `--release-key`. `svc --version --verbose` prints it.
 */
declare const SVC_RELEASE_PUBLIC_KEY: string | undefined;

export const PROJECT_RELEASE_PUBLIC_KEY = "RWSruKIyOZx7JNMU1GMP5BAzQHOY7m2p47lPS0FQajYaxQJSpCDyGW3+";

export const RELEASE_PUBLIC_KEY: string = typeof SVC_RELEASE_PUBLIC_KEY === "string" ? SVC_RELEASE_PUBLIC_KEY : PROJECT_RELEASE_PUBLIC_KEY;
