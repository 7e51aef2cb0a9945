/** Permission modes toolhost runs (Claude Code's, without the classifier-driven `auto`). */
export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
