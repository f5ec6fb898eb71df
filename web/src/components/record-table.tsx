// The table of a list projection (DESIGN.md 3.7): the columns the metadata marks visible (long
// text, foreign keys whose record is loaded and detail arrays are not), sortable headers as buttons named
// after the column, the record's title linking to its form.

import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ColumnMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { formatDate } from '../lib/format.js';
import { labelsOf } from '../lib/lookup-labels.js';
import { Link } from '../lib/router.js';
import type { RowMark, RowMarks } from '../lib/use-live-list.js';

export type Row = Readonly<Record<string, unknown>>;

export interface SortState {
  readonly sort: string | null;
  readonly direction: 'asc' | 'desc';
  readonly onSort: (column: string) => void;
}

const LONG = 80;

/** Labels of the foreign keys on the page, per column: `Weekly orders` instead of `12`. */
type ReferenceLabels = ReadonlyMap<string, ReadonlyMap<string, string>>;

function useReferenceLabels(
  columns: readonly ColumnMeta[],
  rows: readonly Row[] | null,
): ReferenceLabels {
  const [labels, setLabels] = useState<ReferenceLabels>(new Map());
  useEffect(() => {
    let current = true;
    const referring = columns.filter((c) => c.reference);
    if (!rows || referring.length === 0) return;
    void Promise.all(
      referring.map(async (c) => {
        const ids = rows
          .map((row) => row[c.name])
          .filter((v) => v != null)
          .map(String);
        return [c.name, await labelsOf(c.reference?.lookup ?? '', ids)] as const;
      }),
    )
      .then((found) => current && setLabels(new Map(found)))
      // A label is a nicety: the id stays shown when it cannot be looked up.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [columns, rows]);
  return labels;
}

function text(column: ColumnMeta, value: unknown, labels?: ReadonlyMap<string, string>): string {
  if (value === null || value === undefined) return '';
  if (labels) return labels.get(String(value)) ?? String(value);
  if (column.type === 'object' && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const [first, ...rest] = (column.display ?? ['name'])
      .map((key) => record[key])
      .filter((v) => v !== null && v !== undefined && v !== '');
    if (first === undefined) return '';
    return rest.length > 0 ? `${first} (${rest.join(', ')})` : String(first);
  }
  if (column.type === 'datetime') return formatDate(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function visibleColumns(meta: ResourceMeta): ColumnMeta[] {
  return meta.list.columns.filter((c) => c.visible);
}

/** Which column's cell links to the record: its first title field shown, else its key. */
function linkColumn(meta: ResourceMeta, columns: readonly ColumnMeta[]): string | null {
  if (!meta.allowed.includes('show') && !meta.allowed.includes('update')) return null;
  const names = new Set(columns.map((c) => c.name));
  return meta.title_fields.find((f) => names.has(f)) ?? (names.has(meta.key) ? meta.key : null);
}

const isNumber = (column: ColumnMeta) =>
  (column.type === 'integer' || column.type === 'number') && !column.reference;

export interface RecordTableProps {
  readonly meta: ResourceMeta;
  readonly rows: readonly Row[] | null;
  readonly caption: string;
  readonly sorting?: SortState;
  readonly busy?: boolean;
  /** Rows that changed since the page was read (the change feed): marked, with a word. */
  readonly marks?: RowMarks;
}

const MARK_WORDS: Record<RowMark, string> = { new: 'New', changed: 'Changed', deleted: 'Deleted' };

export function RecordTable({ meta, rows, caption, sorting, busy, marks }: RecordTableProps) {
  const columns = useMemo(() => visibleColumns(meta), [meta]);
  const linked = linkColumn(meta, columns);
  const referenceLabels = useReferenceLabels(columns, rows);
  return (
    // Focusable so a keyboard can scroll a table wider than the screen.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1)
    <div class="table-wrap" tabIndex={0} aria-busy={busy ? 'true' : undefined}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const sorted = sorting?.sort === column.name;
              const ariaSort = sorted
                ? sorting?.direction === 'desc'
                  ? 'descending'
                  : 'ascending'
                : undefined;
              return (
                <th
                  key={column.name}
                  scope="col"
                  aria-sort={ariaSort}
                  class={isNumber(column) ? 'number' : undefined}
                >
                  {sorting && column.sortable ? (
                    <button type="button" class="sort" onClick={() => sorting.onSort(column.name)}>
                      {column.label}
                      <span aria-hidden="true">
                        {sorted ? (sorting.direction === 'desc' ? ' ▼' : ' ▲') : ' ↕'}
                      </span>
                    </button>
                  ) : (
                    column.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows === null ? (
            <tr>
              <td colSpan={columns.length}>Loading…</td>
            </tr>
          ) : rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length}>No records.</td>
            </tr>
          ) : (
            rows.map((row) => {
              const id = String(row[meta.key]);
              const mark = marks?.get(id);
              return (
                <tr key={id} class={mark ? `row-${mark}` : undefined}>
                  {columns.map((column) => {
                    const full = text(column, row[column.name], referenceLabels.get(column.name));
                    const shown = full.length > LONG ? `${full.slice(0, LONG - 1)}…` : full;
                    const cell =
                      column.name === linked ? (
                        <>
                          <Link href={`/admin/r/${meta.name}/${encodeURIComponent(id)}`}>
                            {shown === '' ? `#${id}` : shown}
                          </Link>
                          {mark ? <span class="row-mark">{MARK_WORDS[mark]}</span> : null}
                        </>
                      ) : column.type === 'datetime' && typeof row[column.name] === 'string' ? (
                        <time dateTime={row[column.name] as string}>{shown}</time>
                      ) : (
                        shown
                      );
                    return (
                      <td
                        key={column.name}
                        class={
                          [
                            isNumber(column) ? 'number' : '',
                            column.name === linked || column.type === 'datetime' ? 'nowrap' : '',
                          ]
                            .join(' ')
                            .trim() || undefined
                        }
                        title={full !== shown ? full : undefined}
                      >
                        {cell}
                      </td>
                    );
                  })}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
