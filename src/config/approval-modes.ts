/** The built-in agent's approval modes (Qwen Code's set), from the narrowest to the widest as far as asking goes. */
export const APPROVAL_MODES = ["plan", "default", "auto-edit", "auto", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export const DEFAULT_APPROVAL_MODE: ApprovalMode = "auto";

/** The modes an untrusted workspace may run in: `plan` refuses every change, `default` asks before each. */
export const UNTRUSTED_MODES: readonly ApprovalMode[] = ["plan", "default"];

export const isApprovalMode = (value: unknown): value is ApprovalMode => typeof value === "string" && (APPROVAL_MODES as readonly string[]).includes(value);

/** `mode` held to what an untrusted workspace allows: `plan` stays, anything wider becomes `default`. */
export const untrustedMode = (mode: ApprovalMode): ApprovalMode => (mode === "plan" ? "plan" : "default");
