// What `svc make:migration` writes: the entity declarations (declare-entity.ts) compared with
// what the existing migrations create (a scratch SQLite database they ran on), per migration set.
// It adds what is missing (tables, columns, indexes, foreign keys of new columns) and only notes
// what it will not change by itself (a column of another length or nullability, a foreign key
// on an existing column, which SQLite cannot add).
import type { MigratedTable } from '../database/dialects/sqlite/migrated-schema.js';
import type { DeclaredColumn, DeclaredTable } from './declare-entity.js';

export interface PlannedIndex {
  readonly table: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  readonly name: string;
}

export interface MigrationPlan {
  readonly set: 'system' | 'data';
  /** New tables, each after the tables its foreign keys name. */
  readonly tables: readonly DeclaredTable[];
  readonly columns: ReadonlyArray<{ readonly table: string; readonly column: DeclaredColumn }>;
  readonly indexes: readonly PlannedIndex[];
  /** Differences left for a person to decide, as comment lines. */
  readonly notes: readonly string[];
}

export const indexName = (table: string, columns: readonly string[], unique: boolean): string =>
  `${table}_${columns.join('_')}_${unique ? 'unique' : 'index'}`;

/** The plan of each set that has something to do. */
export function planMigrations(
  declared: readonly DeclaredTable[],
  migrated: ReadonlyMap<string, MigratedTable>,
): MigrationPlan[] {
  const plans: MigrationPlan[] = [];
  for (const set of ['system', 'data'] as const) {
    const tables = declared.filter((t) => t.storage === set);
    const plan: MigrationPlan = {
      set,
      tables: inDependencyOrder(tables.filter((t) => !migrated.has(t.table))),
      columns: [],
      indexes: [],
      notes: [],
    };
    for (const table of tables) planTable(table, migrated.get(table.table), plan);
    const empty =
      plan.tables.length + plan.columns.length + plan.indexes.length + plan.notes.length === 0;
    if (!empty) plans.push(plan);
  }
  return plans;
}

function planTable(table: DeclaredTable, existing: MigratedTable | undefined, plan: MigrationPlan) {
  const columns = plan.columns as Array<MigrationPlan['columns'][number]>;
  const notes = plan.notes as string[];
  const have: Array<{ columns: readonly string[]; unique: boolean }> = existing
    ? [...existing.indexes]
    : [{ columns: [table.primaryKey], unique: true }];
  for (const column of table.columns) {
    const found = existing?.columns.get(column.name);
    if (!existing || !found) {
      if (existing) columns.push({ table: table.table, column });
      // A new column's unique constraint is written with it.
      if (column.unique) have.push({ columns: [column.name], unique: true });
      continue;
    }
    if (column.name === table.primaryKey) continue;
    const where = `${table.table}.${column.name}`;
    if (column.kind === 'varchar' && found.type !== `varchar(${column.length})`)
      notes.push(`${where}: declared varchar(${column.length}), the migrations make ${found.type}`);
    if (column.notNull !== found.notNull)
      notes.push(
        `${where}: declared ${column.notNull ? 'NOT NULL' : 'nullable'}, the migrations make it ${found.notNull ? 'NOT NULL' : 'nullable'}`,
      );
    if (column.references && !existing.foreignKeys.some((fk) => fk.column === column.name))
      notes.push(
        `${where}: declared a foreign key to ${column.references.table}, which an existing column cannot get on SQLite: add it by hand where the engine allows`,
      );
  }
  const wanted = [
    ...table.columns.filter((c) => c.unique).map((c) => ({ columns: [c.name], unique: true })),
    ...table.columns.filter((c) => c.index).map((c) => ({ columns: [c.name], unique: false })),
    ...table.indexes.map((columns) => ({ columns, unique: false })),
  ].sort((a, b) => b.columns.length - a.columns.length);
  for (const index of wanted) {
    const served = have.some((h) =>
      index.unique
        ? h.unique && h.columns.join() === index.columns.join()
        : index.columns.every((c, i) => h.columns[i] === c),
    );
    if (served) continue;
    have.push(index);
    (plan.indexes as PlannedIndex[]).push({
      table: table.table,
      ...index,
      name: indexName(table.table, index.columns, index.unique),
    });
  }
}

/** Tables ordered so each comes after the new tables its foreign keys reference. */
function inDependencyOrder(tables: readonly DeclaredTable[]): DeclaredTable[] {
  const pending = [...tables];
  const ordered: DeclaredTable[] = [];
  while (pending.length > 0) {
    const next =
      pending.find((t) =>
        t.columns.every(
          (c) =>
            !c.references ||
            c.references.table === t.table ||
            !pending.some((p) => p.table === c.references?.table),
        ),
      ) ?? (pending[0] as DeclaredTable);
    ordered.push(next);
    pending.splice(pending.indexOf(next), 1);
  }
  return ordered;
}
