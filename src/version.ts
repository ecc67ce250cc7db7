/** The daemon's version: stamped by build.ts into the binary, else read from package.json. */
import { version as packageVersion } from "../package.json";

declare const SVC_BUILD_VERSION: string | undefined;

export const VERSION: string = typeof SVC_BUILD_VERSION === "string" ? SVC_BUILD_VERSION : packageVersion;
