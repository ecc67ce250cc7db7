/** The git views' query bounds, which the route schemas declare at boot (the views load on first use). */
export const DEFAULT_LOG_LIMIT = 50;
export const MAX_LOG_LIMIT = 200;
/** Search text used (the rest is ignored, as the reference does). */
export const MAX_SEARCH_CHARS = 200;
