/** Plain-text tables for the report: first column left-aligned, the rest right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] ?? "").length)));
  const line = (row: readonly string[]) =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].map((l) => `  ${l}`).join("\n");
}

export const fmt = {
  ms: (n: number) => (n < 10 ? `${n.toFixed(2)} ms` : `${n.toFixed(1)} ms`),
  mb: (n: number) => `${n.toFixed(1)} MB`,
  rps: (n: number) => `${(n / 1000).toFixed(1)}k`,
  ratio: (n: number) => n.toFixed(2),
  int: (n: number) => n.toLocaleString("en-US"),
};
