// The value input of one list filter, by the filter's input kind: choices (several for `in` and
// `not in`), a reference's lookup picker, a number, a date and time, or text; none for `null`.
import type { FilterMeta } from '../../../src/engine/description/metadata-types.js';
import { type FilterValue, needsValue } from '../lib/list-params.js';
import { LookupPicker } from './lookup-picker.js';

export function FilterInput(props: {
  filter: FilterMeta;
  id: string;
  value: FilterValue;
  onChange: (value: FilterValue, apply: boolean) => void;
}) {
  const { filter, id, value, onChange } = props;
  if (!needsValue(value.operator)) return null;
  const set = (text: string, apply = false) => onChange({ ...value, value: text }, apply);
  switch (filter.input) {
    case 'choice':
      // `in` / `not in`: several choices (the address keeps them comma-separated).
      if (value.operator === 'in' || value.operator === 'not in') {
        const chosen = new Set(value.value.split(',').filter(Boolean));
        return (
          <select
            id={id}
            multiple
            size={Math.min(4, filter.choices?.length ?? 1)}
            onChange={(e) =>
              set([...e.currentTarget.selectedOptions].map((o) => o.value).join(','), true)
            }
          >
            {(filter.choices ?? []).map((c) => (
              <option key={c.value} value={c.value} selected={chosen.has(c.value)}>
                {c.label}
              </option>
            ))}
          </select>
        );
      }
      return (
        <select id={id} value={value.value} onChange={(e) => set(e.currentTarget.value, true)}>
          <option value="">Any</option>
          {(filter.choices ?? []).map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      );
    case 'reference':
      return filter.reference && (value.operator === '=' || value.operator === '!=') ? (
        <LookupPicker
          id={id}
          lookup={filter.reference.lookup}
          value={value.value}
          onChange={(picked) => set(picked, true)}
        />
      ) : (
        <input id={id} value={value.value} onInput={(e) => set(e.currentTarget.value)} />
      );
    case 'number':
      return (
        <input
          id={id}
          inputMode="numeric"
          value={value.value}
          onInput={(e) => set(e.currentTarget.value)}
        />
      );
    case 'datetime':
      return (
        <input
          id={id}
          type="datetime-local"
          value={value.value}
          onInput={(e) => set(e.currentTarget.value)}
        />
      );
    default:
      return (
        <input
          id={id}
          type="search"
          value={value.value}
          onInput={(e) => set(e.currentTarget.value)}
        />
      );
  }
}
