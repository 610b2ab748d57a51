/**
 * A plain text table: columns padded to their widest cell, a header row, no
 * colour (so it reads the same in a terminal, a log file and a CI job).
 *
 * @example
 * formatTable(['DATE', 'STATUS'], [['2026-11-02', 'success']])
 */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A compact one-line view of a metrics object: `rows=7 valid=4 …`. */
export function formatMetrics(metrics: Record<string, unknown> | null): string {
  if (!metrics) return '';
  return Object.entries(metrics)
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}
