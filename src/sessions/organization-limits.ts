/** Session organization's bounds (sessions/organization.ts), also reported in `/capabilities` `limits`. */
export const MAX_GROUPS = 200;
export const MAX_GROUP_NAME_CHARS = 64;
