// A migration plan (schema-plan.ts) written as the TypeScript of a migration, in the style of
// the shipped ones (Kysely's schema builder, database/migrations/column-types.ts for what
// differs per engine), to be read and edited before it runs.
import type { DeclaredColumn } from './declare-entity.js';
import type { ColumnDefault } from './fields.js';
import type { MigrationPlan } from './schema-plan.js';

const TYPES: Record<DeclaredColumn['kind'], (c: DeclaredColumn) => string> = {
  id: () => 't.bigint',
  varchar: (c) => `'varchar(${c.length})'`,
  text: () => `'text'`,
  integer: () => `'integer'`,
  bigint: () => 't.bigint',
  float: () => `'double precision'`,
  boolean: () => `'boolean'`,
  timestamp: () => 't.timestamp',
  json: () => 't.json',
};

const literal = (value: ColumnDefault): string =>
  typeof value === 'object' ? `sql\`${value.sql}\`` : JSON.stringify(value).replace(/"/g, "'");

function addColumn(column: DeclaredColumn, primaryKey = false): string {
  const modifiers = [
    primaryKey ? 'primaryKey()' : '',
    column.notNull ? 'notNull()' : '',
    column.default !== undefined ? `defaultTo(${literal(column.default)})` : '',
    column.unique ? 'unique()' : '',
    column.references
      ? `references('${column.references.table}.${column.references.column}').onDelete('${column.references.onDelete}')`
      : '',
  ].filter(Boolean);
  const type = TYPES[column.kind](column);
  return modifiers.length === 0
    ? `.addColumn('${column.name}', ${type})`
    : `.addColumn('${column.name}', ${type}, (c) => c.${modifiers.join('.')})`;
}

/** The migration's source; `command` is the line that made it (its header says so). */
export function migrationSource(plan: MigrationPlan, command: string): string {
  const up: string[] = [];
  const down: string[] = [];
  for (const table of plan.tables) {
    const keyed = table.columns.find((c) => c.name === table.primaryKey)?.kind === 'id';
    const rest = table.columns.filter((c) => !(keyed && c.name === table.primaryKey));
    up.push(
      `  await ${keyed ? 't\n    .id(' : 't\n    .table('}db.schema.createTable('${table.table}'))`,
      ...rest.map((c) => `    ${addColumn(c, c.name === table.primaryKey)}`),
      '    .execute();',
    );
    down.unshift(`  await db.schema.dropTable('${table.table}').execute();`);
  }
  for (const { table, column } of plan.columns) {
    if (column.notNull && column.default === undefined)
      up.push(`  // NOT NULL without a default: rows already in ${table} need a value first.`);
    up.push(
      `  await db.schema\n    .alterTable('${table}')\n    ${addColumn(column)}\n    .execute();`,
    );
    down.unshift(
      `  await db.schema.alterTable('${table}').dropColumn('${column.name}').execute();`,
    );
  }
  const newTables = new Set(plan.tables.map((t) => t.table));
  for (const index of plan.indexes) {
    const columns =
      index.columns.length === 1
        ? `.column('${index.columns[0]}')`
        : `.columns([${index.columns.map((c) => `'${c}'`).join(', ')}])`;
    up.push(
      `  await db.schema\n    .createIndex('${index.name}')\n    .on('${index.table}')\n    ${columns}${index.unique ? '\n    .unique()' : ''}\n    .execute();`,
    );
    // An index of a new table goes with its table.
    if (!newTables.has(index.table))
      down.unshift(`  await t.dropIndex('${index.name}', '${index.table}').execute();`);
  }
  const notes = plan.notes.map((note) => `  // To decide: ${note}.`);
  const usesT = /\bt[.\n]/.test([...up, ...down].join('\n'));
  const usesSql = up.some((line) => line.includes('sql`'));
  const imports = [
    ...(usesSql ? ["import { sql } from 'kysely';"] : []),
    "import type { Db } from '../../db.js';",
    ...(usesT ? ["import { columnTypes } from '../column-types.js';"] : []),
  ];
  const body = (lines: string[]) =>
    `${usesT && lines.some((l) => /\bt[.\n]/.test(l)) ? '  const t = columnTypes(db);\n' : ''}${lines.join('\n')}`;
  return `// Made by \`${command}\` from the entity declarations: it brings the
// ${plan.set} tables to them. Read it, edit it if need be, then run \`npx svc migrate\`.
${imports.join('\n')}

export async function up(db: Db): Promise<void> {
${body([...notes, ...up])}
}

export async function down(db: Db): Promise<void> {
${body(down)}
}
`;
}
