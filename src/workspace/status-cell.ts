/** The status cell shared by the workspace status routes (spec: "Status cell"). */
export type CellStatus = "ok" | "warning" | "error" | "disabled" | "not_started" | "unknown";

export interface StatusCell {
  readonly kind: string;
  readonly status: CellStatus;
  readonly error?: string;
  readonly errorKind?: string;
  readonly hint?: string;
  readonly [extra: string]: unknown;
}
