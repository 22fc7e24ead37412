/**
 * A plain-text table for stdout: each column padded to its widest cell, columns two spaces apart,
 * trailing spaces trimmed. Shared by the `trial` and `stats` tables.
 */
export function alignedRows(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}
