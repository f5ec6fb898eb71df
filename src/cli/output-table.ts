// List commands print JSON on stdout, or, when stdout is a terminal, the same rows as a table
// for a person (issue 20). Values are shown as JSON would, `-` for null, control characters
// escaped (terminal-text.ts).
import { printJson } from './database-session.js';
import { escapeControls } from './terminal-text.js';

type Row = Readonly<Record<string, unknown>>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return escapeControls(typeof value === 'string' ? value : JSON.stringify(value));
}

export function formatTable(rows: readonly Row[], columns: readonly string[]): string {
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')}\n`;
}

export function printRows(rows: readonly Row[], columns: readonly string[], what: string): void {
  if (process.stdout.isTTY) {
    process.stdout.write(rows.length > 0 ? formatTable(rows, columns) : `No ${what}.\n`);
  } else {
    printJson(rows);
  }
}
