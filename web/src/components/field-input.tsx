// One writable field's input, chosen by its metadata's `input` kind (issue 18 item 4): labels,
// required marks, length bounds, choices, pickers for foreign keys, the JSON code area. The
// service validates: inputs carry aria-required, not `required`, so a 422 is what the person sees.
import type { FieldMeta } from '../../../src/engine/description/metadata-types.js';
import { JsonEditor } from './json-editor.js';
import { LookupPicker } from './lookup-picker.js';

export interface FieldInputProps {
  readonly field: FieldMeta;
  readonly id: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly required: boolean;
  /** The accessible name when no <label for> names it (a table cell). */
  readonly label?: string;
  readonly invalid: boolean;
  readonly describedBy?: string | undefined;
  readonly isNew: boolean;
}

/** The values of a `choices` input's JSON text (none when it is not a list). */
function parsedList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

export function FieldInput(props: FieldInputProps) {
  const { field, id, value, onChange, invalid } = props;
  const common = {
    id,
    'aria-label': props.label,
    'aria-invalid': invalid ? ('true' as const) : undefined,
    'aria-describedby': props.describedBy,
    'aria-required': props.required ? ('true' as const) : undefined,
  };
  const onInput = (event: { currentTarget: { value: string } }) =>
    onChange(event.currentTarget.value);
  switch (field.input) {
    case 'json':
      return (
        <JsonEditor
          id={id}
          value={value}
          onChange={onChange}
          invalid={invalid}
          describedBy={props.describedBy}
          required={props.required}
        />
      );
    case 'textarea':
      return <textarea {...common} value={value} onInput={onInput} rows={4} />;
    case 'choice':
      return (
        <select {...common} value={value} onChange={onInput}>
          {props.required && value !== '' ? null : <option value="">—</option>}
          {(field.choices ?? []).map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      );
    case 'choices': {
      // The value is the JSON array of the chosen values (form-values.ts).
      const chosen = new Set(parsedList(value));
      return (
        <select
          {...common}
          multiple
          size={Math.min(8, field.choices?.length ?? 1)}
          onChange={(event) =>
            onChange(
              JSON.stringify(
                [...event.currentTarget.selectedOptions].map((option) => option.value),
              ),
            )
          }
        >
          {(field.choices ?? []).map((choice) => (
            <option key={choice.value} value={choice.value} selected={chosen.has(choice.value)}>
              {choice.label}
            </option>
          ))}
        </select>
      );
    }
    case 'reference':
      return field.reference ? (
        <LookupPicker
          id={id}
          label={props.label}
          lookup={field.reference.lookup}
          value={value}
          onChange={onChange}
          invalid={invalid}
          describedBy={props.describedBy}
          required={props.required}
        />
      ) : (
        <input {...common} inputMode="numeric" value={value} onInput={onInput} />
      );
    case 'number':
      return <input {...common} inputMode="decimal" value={value} onInput={onInput} />;
    case 'datetime':
      return <input {...common} type="datetime-local" value={value} onInput={onInput} />;
    case 'email':
      return <input {...common} type="email" autoComplete="off" value={value} onInput={onInput} />;
    case 'password':
      return (
        <input
          {...common}
          type="password"
          autoComplete="new-password"
          value={value}
          onInput={onInput}
        />
      );
    default:
      return (
        <input
          {...common}
          type="text"
          maxLength={field.max_length ?? undefined}
          value={value}
          onInput={onInput}
        />
      );
  }
}
