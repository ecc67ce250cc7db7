/** The `/export` formats and their media types: what the route declares; the renderer (`transcript-export.ts`) loads on first export. */
export const EXPORT_FORMATS = ["html", "md", "json", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  html: "text/html; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  json: "application/json",
  jsonl: "application/jsonl",
};
