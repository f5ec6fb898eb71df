// One detail relation of a master-detail form (issue 18 item 4, DESIGN.md 3.7): a region named
// after it with a table of staged rows (one input per writable field, errors in their cells by
// `<relation>.<index>.<field>`), `Add row` and a `Remove row` per row.
import { useId } from 'preact/hooks';
import type { DetailMeta } from '../../../src/engine/description/metadata-types.js';
import { emptyRow, type StagedRow } from '../lib/form-values.js';
import { FieldInput } from './field-input.js';

interface DetailRowsProps {
  readonly detail: DetailMeta;
  readonly rows: readonly StagedRow[];
  readonly onChange: (rows: readonly StagedRow[]) => void;
  readonly errorOf: (key: string) => string | null;
  readonly dropError: (...keys: string[]) => void;
  /** Row positions moved: the errors of the relation's rows no longer point at them. */
  readonly dropPrefix: (prefix: string) => void;
  readonly isNew: boolean;
  readonly onAdded: (key: number) => void;
}

/** One detail relation: a region named after it, a table of staged rows, Add row, Remove row. */
export function DetailRows(props: DetailRowsProps) {
  const { detail, rows, onChange, errorOf } = props;
  const headingId = useId();
  const fields = detail.fields.filter((f) => !f.read_only && f.name !== detail.foreign_key);
  const relationError = errorOf(detail.name);
  return (
    <section class="detail" aria-labelledby={headingId}>
      <h2 id={headingId}>{detail.label}</h2>
      {relationError ? <p class="field-error">{relationError}</p> : null}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1) */}
      <div class="table-wrap" tabIndex={0}>
        <table>
          <thead>
            <tr>
              {fields.map((field) => (
                <th key={field.name} scope="col">
                  {field.label}
                </th>
              ))}
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={fields.length + 1} class="muted">
                  No rows.
                </td>
              </tr>
            ) : null}
            {rows.map((row, index) => {
              const rowError =
                errorOf(`${detail.name}.${index}.${detail.key}`) ??
                errorOf(`${detail.name}.${index}`);
              return (
                <tr key={row.key} data-row={row.key}>
                  {fields.map((field, column) => {
                    const path = `${detail.name}.${index}.${field.name}`;
                    const error = errorOf(path);
                    const errorId = `${headingId}-${row.key}-${field.name}-error`;
                    return (
                      <td key={field.name}>
                        <FieldInput
                          field={field}
                          id={`${headingId}-${row.key}-${field.name}`}
                          label={field.label}
                          value={row.values[field.name] ?? ''}
                          onChange={(value) => {
                            onChange(
                              rows.map((r) =>
                                r.key === row.key
                                  ? { ...r, values: { ...r.values, [field.name]: value } }
                                  : r,
                              ),
                            );
                            props.dropError(path);
                          }}
                          required={props.isNew ? field.required : field.required_on_update}
                          invalid={error !== null}
                          describedBy={error ? errorId : undefined}
                          isNew={props.isNew}
                        />
                        {error ? (
                          <p id={errorId} class="cell-error">
                            {error}
                          </p>
                        ) : null}
                        {column === 0 && rowError ? <p class="cell-error">{rowError}</p> : null}
                      </td>
                    );
                  })}
                  <td>
                    <button
                      type="button"
                      onClick={() => {
                        onChange(rows.filter((r) => r.key !== row.key));
                        props.dropPrefix(`${detail.name}.`);
                      }}
                    >
                      Remove row
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <button
        type="button"
        onClick={() => {
          const row = emptyRow(detail);
          onChange([...rows, row]);
          props.onAdded(row.key);
        }}
      >
        Add row
      </button>
    </section>
  );
}
