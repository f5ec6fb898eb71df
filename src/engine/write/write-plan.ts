// The write plan (SPEC.md 4.4 rules 4 to 7): built once right after the locking read, from the
// payload and the stored rows it changes. Per detail relation it says, row by row, which stored
// row the payload names, the values it stores, and whether it is inserted or updated; and which
// stored rows are deleted. Validation and synchronisation both read the plan, nothing else.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import type { ErrorBag } from '../../errors.js';
import type { Entity, HasMany, Row } from '../../model/entity.js';
import type { Payload, PayloadRow } from './payload.js';
import { storedValues } from './stored-values.js';

/** Stored detail rows of one master, per relation, by row id. */
export type StoredDetails = ReadonlyMap<HasMany, ReadonlyMap<number, Row>>;

export interface PlannedRow extends PayloadRow {
  /** The stored row the payload names (null for a new row, or an id that is not this master's). */
  readonly stored: Row | null;
  /**
   * insert: a new row. update: `changes` (null when none) to the stored row. refused: the id is
   * malformed, named twice, or not one of this master's rows: a 422 (DESIGN.md 3.5).
   */
  readonly op: 'insert' | 'update' | 'refused';
  /** Why a refused row's id is refused. */
  readonly refusal: string | null;
  /** What the row stores: every value for an insert, only the changed ones for an update. */
  readonly changes: Row | null;
}

export interface DetailPlan {
  readonly name: string;
  readonly relation: HasMany;
  readonly target: Entity;
  readonly rows: readonly PlannedRow[];
  /** Stored rows of this master the payload does not name. */
  readonly deletes: readonly number[];
}

export interface WritePlan {
  readonly master: Row;
  readonly details: readonly DetailPlan[];
  /** The payload's own errors (values of the wrong shape). */
  readonly errors: ErrorBag;
}

const NONE: ReadonlyMap<number, Row> = new Map();

export function planWrite(
  payload: Payload,
  stored: StoredDetails,
  adapter: DialectAdapter,
  /**
   * A restore (DESIGN.md 3.11): a row whose id is not one of this master's stored rows is one
   * deleted since the revision, inserted again with its id (ids are never reused: it names that
   * row and no other).
   */
  restoring = false,
): WritePlan {
  const details = payload.details.map(({ name, relation, rows }): DetailPlan => {
    const target = relation.target();
    const storedRows = stored.get(relation) ?? NONE;
    const planned = rows.map((row): PlannedRow => {
      if (row.idError !== null) return plannedRow(row, null, 'refused', null, row.idError);
      const values = storedValues(target, row.fields, adapter);
      if (row.id === null) return plannedRow(row, null, 'insert', values, null);
      const before = storedRows.get(row.id);
      if (before === undefined && restoring)
        return plannedRow(row, null, 'insert', { ...values, [target.primaryKey]: row.id }, null);
      // Another master's row, or no row: DESIGN.md 3.5.
      if (before === undefined)
        return plannedRow(
          row,
          null,
          'refused',
          null,
          `The selected ${name}.${row.index}.${target.primaryKey} is invalid.`,
        );
      return plannedRow(row, before, 'update', changed(before, values), null);
    });
    const named = new Set(rows.map((row) => row.id));
    const deletes = [...storedRows.keys()].filter((id) => !named.has(id));
    return { name, relation, target, rows: planned, deletes };
  });
  return { master: payload.master, details, errors: payload.errors };
}

/** One literal for every planned row: a single object shape on the write path's hot loop. */
function plannedRow(
  row: PayloadRow,
  stored: Row | null,
  op: PlannedRow['op'],
  changes: Row | null,
  refusal: string | null,
): PlannedRow {
  return {
    index: row.index,
    id: row.id,
    fields: row.fields,
    idError: row.idError,
    stored,
    op,
    changes,
    refusal,
  };
}

/** The values that differ from the stored row's, or null when none does. */
function changed(before: Row, values: Row): Row | null {
  let changes: Row | null = null;
  for (const field in values) {
    if (String(before[field] ?? null) !== String(values[field] ?? null))
      (changes ??= {})[field] = values[field];
  }
  return changes;
}
