// A form's master fields: the read-only ones as facts above the inputs (a datetime as a <time>),
// and each writable one as its labelled input with its required mark, hint and error.
import type { FieldMeta } from '../../../src/engine/description/metadata-types.js';
import { formatDate } from '../lib/format.js';
import { FieldInput } from './field-input.js';

export function RecordFacts(props: {
  fields: readonly FieldMeta[];
  record: Readonly<Record<string, unknown>>;
}) {
  const { fields, record } = props;
  return (
    <dl class="record-facts">
      {fields.map((field) => (
        <div key={field.name}>
          <dt>{field.label}</dt>
          <dd>
            {field.input === 'datetime' ? (
              <time dateTime={String(record[field.name] ?? '')}>
                {formatDate(record[field.name])}
              </time>
            ) : (
              String(record[field.name] ?? '')
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function MasterField(props: {
  field: FieldMeta;
  id: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
  isNew: boolean;
}) {
  const { field, id, value, onChange, error, isNew } = props;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const required = isNew ? field.required : field.required_on_update;
  const hint =
    field.input === 'password' && !isNew
      ? 'Leave empty to keep the current password.'
      : field.max_length
        ? `At most ${field.max_length} characters.`
        : null;
  return (
    <div class={`field${field.input === 'json' || field.input === 'textarea' ? ' wide' : ''}`}>
      {/* The mark outside the label: the label's text is the field's label, exactly. */}
      <span class="label-row">
        <label for={id}>{field.label}</label>
        {required ? (
          <span class="required" aria-hidden="true">
            *
          </span>
        ) : null}
      </span>
      <FieldInput
        field={field}
        id={id}
        value={value}
        onChange={onChange}
        required={required}
        invalid={error !== null}
        describedBy={
          [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined
        }
        isNew={isNew}
      />
      {hint ? (
        <p id={hintId} class="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} class="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
