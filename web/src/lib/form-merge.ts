// A form whose record someone else saved meanwhile (a 412, or a change in the feed): what they
// changed, and their version with the person's own edits on top (a three-way merge against the
// version the form was loaded from), so that keeping one's changes does not undo theirs.
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import type { FormState, StagedRow } from './form-values.js';

const rowsText = (rows: readonly StagedRow[] | undefined) =>
  JSON.stringify((rows ?? []).map((row) => [row.id, row.values]));

/** The labels of the fields and detail relations that differ between two versions. */
export function changedLabels(meta: ResourceMeta, before: FormState, after: FormState): string[] {
  const fields = meta.fields
    .filter((f) => !f.read_only && before.master[f.name] !== after.master[f.name])
    .map((f) => f.label);
  const details = meta.details
    .filter((d) => rowsText(before.details[d.name]) !== rowsText(after.details[d.name]))
    .map((d) => d.label);
  return [...fields, ...details];
}

/**
 * Their version with mine on top: a field (or a detail relation, as a whole) I changed since
 * `base` keeps my value; any other takes theirs.
 */
export function mergeForms(base: FormState, mine: FormState, theirs: FormState): FormState {
  const master: Record<string, string> = { ...theirs.master };
  for (const [name, value] of Object.entries(mine.master))
    if (value !== base.master[name]) master[name] = value;
  const details: Record<string, readonly StagedRow[]> = { ...theirs.details };
  for (const [name, rows] of Object.entries(mine.details))
    if (rowsText(rows) !== rowsText(base.details[name])) details[name] = rows;
  return { master, details };
}
