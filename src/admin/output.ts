// Plain-text tables for the admin CLI.
function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.some((v) => typeof v === 'object' && v !== null) ? JSON.stringify(value) : value.join(' ');
  if (typeof value === 'object' && !(value instanceof Date)) return JSON.stringify(value);
  return String(value);
}

export function printTable(rows: object[], out: NodeJS.WritableStream = process.stdout): void {
  if (rows.length === 0) {
    out.write('(none)\n');
    return;
  }
  const columns = Object.keys(rows[0]!);
  const table = [columns, ...rows.map((row) => columns.map((c) => cell((row as Record<string, unknown>)[c])))];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  for (const line of table) out.write(`${line.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
}
